package race

import (
	"testing"
	"unsafe"
)

// TestEntrySize keeps an entry within three cache lines: every check moves
// its lines between cores on contention, and first touches clear whole
// pages of entries.
func TestEntrySize(t *testing.T) {
	if s := unsafe.Sizeof(entry{}); s > 192 {
		t.Errorf("entry is %d bytes, want at most 192", s)
	}
	if s := unsafe.Sizeof(record{}); s > 48 {
		t.Errorf("record is %d bytes, want at most 48", s)
	}
}
