package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a command line the console cannot run: an unknown command,
// a flag it does not know or cannot parse, the wrong arguments. The
// process exits 2 for it, as shells expect of a usage error, and 1 for a
// command that ran and failed.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// exitCode is the process's exit status after err.
func exitCode(err error) int {
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		return 2
	}
	return 1
}

// checkUsage makes every command of root's tree refuse a command line it
// cannot run as a usage error. A command that only groups others (e.g.
// `sesame suppressions`) prints its help when run alone, and refuses a
// word it does not know as a subcommand: cobra would print the help and
// succeed.
func checkUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())}
	})
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if cmd.HasSubCommands() && cmd.RunE == nil && cmd.Run == nil {
			cmd.Args = unknownSubcommand
			cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			cmd.DisableFlagsInUseLine = true // its use line is "print the help"
			cmd.SuggestionsMinimumDistance = 2
			return
		}
		if args := cmd.Args; args != nil {
			cmd.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return &usageError{fmt.Errorf("%s: %w (see %s --help)", cmd.CommandPath(), err, cmd.CommandPath())}
				}
				return nil
			}
		}
	}
	walk(root)
}

// unknownSubcommand refuses any argument of a command that only groups
// subcommands: the argument names none of them.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q; its commands: %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
	}
	return &usageError{errors.New(msg)}
}
