package devstack

import "testing"

// SES's mailbox simulator takes a +label on its addresses; the local
// simulator answers a labelled address as the plain one.
func TestSimulatorMailboxDropsTheLabel(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"bounce@simulator.amazonses.com":      SimulatorBounce,
		"bounce+1@simulator.amazonses.com":    SimulatorBounce,
		"Complaint+x@Simulator.AmazonSES.com": SimulatorComplaint,
		"success+7@simulator.amazonses.com":   "success@simulator.amazonses.com",
		"bounce+1@example.com":                "bounce+1@example.com",
		"no-at-sign":                          "no-at-sign",
	} {
		if got := simulatorMailbox(in); got != want {
			t.Errorf("simulatorMailbox(%q) = %q, want %q", in, got, want)
		}
	}
}
