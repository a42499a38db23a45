//go:build !unix

package engine_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
