package main

import (
	"debug/elf"
	"fmt"
	"path/filepath"
)

// elfMachines maps a function architecture (contextArch) to the ELF
// machine its bootstrap binaries are built for.
var elfMachines = map[string]elf.Machine{
	archARM64: elf.EM_AARCH64,
	archAMD64: elf.EM_X86_64,
}

// binaryArchProblems lists the bootstrap files in binDir that are not
// Linux executables of arch. A function whose binary does not match its
// declared architecture deploys fine and fails at its first invocation
// (exec format error), so run() refuses it before synth.
func binaryArchProblems(binDir, arch string) []string {
	want, ok := elfMachines[arch]
	if !ok {
		return []string{fmt.Sprintf("unknown architecture %q", arch)}
	}
	var problems []string
	for _, fn := range functionNames() {
		p := filepath.Join(binDir, fn, "bootstrap")
		f, err := elf.Open(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: not an ELF executable: %v", p, err))
			continue
		}
		if f.Machine != want || f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
			problems = append(problems, fmt.Sprintf("%s: built for %s (%s), want %s", p, f.Machine, f.OSABI, want))
		}
		f.Close()
	}
	return problems
}
