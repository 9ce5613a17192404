package emulatortest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Stalled is an AWS endpoint that has hung: it accepts connections and
// never answers, like a paused DynamoDB.
type Stalled struct {
	URL      string
	accepted atomic.Int32
}

// Accepted is how many connections the endpoint has accepted: one per
// attempt of a call that reached it.
func (s *Stalled) Accepted() int { return int(s.accepted.Load()) }

// AcceptedAtLeast is Accepted once it reaches n, or after 5 s: the
// kernel completes a connection before Accept returns, and a loaded
// machine may run the accepting goroutine late.
func (s *Stalled) AcceptedAtLeast(n int) int {
	for range 100 {
		if s.Accepted() >= n {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s.Accepted()
}

// Config is an SDK configuration whose every service is s, with static
// credentials; no other endpoint is ever called.
func (s *Stalled) Config() aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("id", "secret", ""),
		BaseEndpoint: aws.String(s.URL),
	}
}

// NewStalled starts a stalled endpoint on loopback until t ends.
func NewStalled(t testing.TB) *Stalled {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Stalled{URL: "http://" + ln.Addr().String()}
	var (
		mu    sync.Mutex
		conns []net.Conn
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return s
}
