package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// What an interrupted bench must not leave behind — the git daemons it
// started and the loop device it mounted — is registered with onSignal and
// undone, newest first, when SIGINT, SIGTERM or SIGHUP reaches the bench
// (a SIGTERM sent to it alone used to leave the daemon serving and the
// image mounted); the bench then exits with 128 and the signal's number.
var undos struct {
	sync.Mutex
	next int
	fns  map[int]func()
}

// onSignal registers f, to be run if the bench is interrupted, and returns
// the function that takes it back once f's work is undone the usual way.
func onSignal(f func()) (forget func()) {
	undos.Lock()
	defer undos.Unlock()
	if undos.fns == nil {
		undos.fns = map[int]func(){}
	}
	k := undos.next
	undos.next++
	undos.fns[k] = f
	return func() {
		undos.Lock()
		delete(undos.fns, k)
		undos.Unlock()
	}
}

// catchSignals starts waiting for the signals that end the bench.
func catchSignals() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-c
		fmt.Fprintf(os.Stderr, "bench: %v: stopping the daemons, unmounting\n", s)
		undos.Lock()
		for k := undos.next - 1; k >= 0; k-- {
			if f, ok := undos.fns[k]; ok {
				f()
			}
		}
		undos.Unlock()
		n := 1
		if sig, ok := s.(syscall.Signal); ok {
			n = int(sig)
		}
		os.Exit(128 + n)
	}()
}
