//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package gpu

// bigEndian reports whether the target stores a word's most significant
// byte first; it places 1- and 2-byte elements in their word (narrow.go).
const bigEndian = true
