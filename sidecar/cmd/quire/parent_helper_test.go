package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// actAsParent plays the plugin: it starts `quire serve` (this test binary)
// with the arguments in QUIRE_PARENT_ARGS, %PID% replaced by its own pid,
// stdin a pipe it never writes to or an empty file, prints the engine's
// pid, and waits to be killed.
func actAsParent() {
	args := strings.Fields(strings.ReplaceAll(os.Getenv("QUIRE_PARENT_ARGS"), "%PID%", strconv.Itoa(os.Getpid())))
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1", "QUIRE_TEST_AS_PARENT=")
	cmd.Stderr = os.Stderr
	if os.Getenv("QUIRE_PARENT_STDIN") == "pipe" {
		if _, err := cmd.StdinPipe(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("engine", cmd.Process.Pid)
	select {}
}
