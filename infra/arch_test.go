package main

import (
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/routes"
)

func TestFunctionArchitecture(t *testing.T) {
	cases := map[string]struct {
		doc  cfnTemplate
		want string
	}{
		"default (arm64)":          {synth(t).doc, "arm64"},
		"LocalStack, arch=amd64":   {synthLocalStack(t).doc, "x86_64"},
		"arch=amd64 without local": {synthWith(t, "amd64", map[string]any{contextArch: archAMD64}).doc, "x86_64"},
	}
	for name, tc := range cases {
		fns := tc.doc.routeFunctions()
		if len(fns) != len(routes.RouteFunctions())+len(routes.Consumers)+len(routes.Schedules)+len(routes.Sites) {
			t.Errorf("%s: %d functions", name, len(fns))
		}
		for id, fn := range fns {
			if got, _ := json.Marshal(fn.Properties["Architectures"]); string(got) != `["`+tc.want+`"]` {
				t.Errorf("%s: %s has Architectures %s, want [%s]", name, id, got, tc.want)
			}
		}
	}
}

// writeELF writes a minimal 64-bit little-endian ELF header for machine.
func writeELF(t *testing.T, path string, machine elf.Machine) {
	t.Helper()
	h := make([]byte, 64)
	copy(h, elf.ELFMAG)
	h[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	h[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	h[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	binary.LittleEndian.PutUint16(h[16:], uint16(elf.ET_EXEC))
	binary.LittleEndian.PutUint16(h[18:], uint16(machine))
	binary.LittleEndian.PutUint32(h[20:], uint32(elf.EV_CURRENT))
	binary.LittleEndian.PutUint16(h[52:], 64) // header size
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, h, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestBinaryArchProblems(t *testing.T) {
	dir := t.TempDir()
	names := functionNames()
	for _, fn := range names {
		writeELF(t, filepath.Join(dir, fn, "bootstrap"), elf.EM_AARCH64)
	}
	if p := binaryArchProblems(dir, archARM64); len(p) != 0 {
		t.Errorf("arm64 binaries, arch arm64: %v", p)
	}
	if p := binaryArchProblems(dir, archAMD64); len(p) != len(names) {
		t.Errorf("arm64 binaries, arch amd64: %d problems, want %d: %v", len(p), len(names), p)
	}
	writeELF(t, filepath.Join(dir, names[0], "bootstrap"), elf.EM_X86_64)
	if err := os.WriteFile(filepath.Join(dir, names[1], "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := binaryArchProblems(dir, archARM64)
	if len(p) != 2 || !strings.Contains(p[0]+p[1], "EM_X86_64") || !strings.Contains(p[0]+p[1], "not an ELF") {
		t.Errorf("one amd64 binary and one script, arch arm64: %v", p)
	}
}
