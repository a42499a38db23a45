//go:build linux && arm64 && cgo

package main

// MuPDF's prebuilt linux/arm64 library (go-fitz v1.24.15) was compiled
// against glibc 2.38+, whose C23 headers rename strtol and strtoul; these
// forward the renamed symbols so the engine links against, and runs on,
// an older glibc (Debian 12 has 2.36).

/*
#include <stdlib.h>
long __isoc23_strtol(const char *n, char **e, int b) { return strtol(n, e, b); }
unsigned long __isoc23_strtoul(const char *n, char **e, int b) { return strtoul(n, e, b); }
*/
import "C"
