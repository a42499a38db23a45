package main

import (
	"testing"
	"time"
)

// TestTimeLeft: the estimate is worded as a person would say it, rounded
// to its largest unit.
func TestTimeLeft(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "almost done"},
		{400 * time.Millisecond, "almost done"},
		{40*time.Second + 400*time.Millisecond, "about 40 s left"},
		{59*time.Second + 400*time.Millisecond, "about 59 s left"},
		{7*time.Minute + 20*time.Second, "about 7 min left"},
		{59*time.Second + 600*time.Millisecond, "about 1 min left"},
		{59*time.Minute + 50*time.Second, "about 1 h left"},
		{2*time.Hour + 5*time.Minute + 10*time.Second, "about 2 h 5 min left"},
	} {
		if got := timeLeft(tt.d); got != tt.want {
			t.Errorf("timeLeft(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
