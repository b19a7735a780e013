package main

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
)

// checkExecutable reads the header of the binary built for t and confirms
// it is an executable of t's format and CPU, so a package can never carry
// another platform's binary under its os and cpu fields (a GOOS or GOARCH
// the environment forced, a wrong table row).
func checkExecutable(path string, t target) error {
	got, err := executableKind(path, t.goos)
	if err != nil {
		return fmt.Errorf("the binary built for %s: %w", t, err)
	}
	if got != t.goarch {
		return fmt.Errorf("the binary built for %s is a %s/%s executable, not %s/%s", t, t.goos, got, t.goos, t.goarch)
	}
	return nil
}

// executableKind opens path in goos's executable format and names its CPU
// as GOARCH does.
func executableKind(path, goos string) (string, error) {
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine], nil
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu], nil
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine], nil
	}
	return "", fmt.Errorf("no executable format known for GOOS=%s", goos)
}
