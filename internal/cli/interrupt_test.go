package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestInterruptible: the data passes as it is; a Read blocked on a
// writer that stalls returns the context's error once it is canceled.
func TestInterruptible(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100000)
	got, err := io.ReadAll(Interruptible(context.Background(), bytes.NewReader(data)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes of %d, %v", len(got), len(data), err)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := Interruptible(ctx, pr)
	go pw.Write([]byte("abc"))
	buf := make([]byte, 10)
	if n, err := r.Read(buf); n != 3 || err != nil {
		t.Fatalf("first read: %d, %v", n, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(buf) // the writer writes nothing more
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked after the cancel")
	}
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("a later read: %v", err)
	}
}
