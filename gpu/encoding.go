package gpu

import (
	"encoding/json"
	"fmt"

	"github.com/warpguard/warpguard/internal/modpath"
)

// The runtime's vocabulary encodes as text names and its coordinates as
// (x,y,z) arrays, so that race reports marshal to stable JSON: an Op as
// "atomicCAS", an Order as "release", a Space as "shared", a Dim3 as
// [1,0,0], a Site as {"file": "race/x_test.go", "line": 12, "function":
// "..."} with the file relative to its module's root.

// MarshalText encodes o as its name, such as "atomicAdd".
func (o Op) MarshalText() ([]byte, error) {
	if int(o) >= len(opNames) {
		return nil, fmt.Errorf("gpu: cannot encode %v", o)
	}
	return []byte(opNames[o]), nil
}

// UnmarshalText decodes a name MarshalText wrote.
func (o *Op) UnmarshalText(b []byte) error {
	for i, name := range opNames {
		if name == string(b) {
			*o = Op(i)
			return nil
		}
	}
	return fmt.Errorf("gpu: unknown operation %q", b)
}

// orders lists the Orders, for decoding their names.
var orders = [...]Order{Weak, Volatile, Relaxed, Acquire, Release}

// MarshalText encodes o as its name, such as "relaxed".
func (o Order) MarshalText() ([]byte, error) {
	if int(o) >= len(orders) {
		return nil, fmt.Errorf("gpu: cannot encode %v", o)
	}
	return []byte(o.String()), nil
}

// UnmarshalText decodes a name MarshalText wrote.
func (o *Order) UnmarshalText(b []byte) error {
	for _, v := range orders {
		if v.String() == string(b) {
			*o = v
			return nil
		}
	}
	return fmt.Errorf("gpu: unknown memory order %q", b)
}

// MarshalText encodes s as "global" or "shared".
func (s Space) MarshalText() ([]byte, error) {
	if s > SharedSpace {
		return nil, fmt.Errorf("gpu: cannot encode space(%d)", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes "global" or "shared".
func (s *Space) UnmarshalText(b []byte) error {
	switch string(b) {
	case "global":
		*s = GlobalSpace
	case "shared":
		*s = SharedSpace
	default:
		return fmt.Errorf("gpu: unknown memory space %q", b)
	}
	return nil
}

// MarshalJSON encodes d as the array [x,y,z].
func (d Dim3) MarshalJSON() ([]byte, error) {
	return json.Marshal([3]int{d.X, d.Y, d.Z})
}

// UnmarshalJSON decodes an array [x,y,z].
func (d *Dim3) UnmarshalJSON(b []byte) error {
	var v [3]int
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("gpu: a Dim3 is an array [x,y,z]: %w", err)
	}
	*d = Dim3{X: v[0], Y: v[1], Z: v[2]}
	return nil
}

// siteJSON is a Site's JSON form.
type siteJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
}

// MarshalJSON encodes s as {"file", "line", "function"}, the file as a
// slash-separated path relative to the root of the module that holds it
// (see [Site.ModuleFile]), or as null when s is unknown.
func (s Site) MarshalJSON() ([]byte, error) {
	if s.f == nil {
		return []byte("null"), nil
	}
	return json.Marshal(siteJSON{File: s.ModuleFile(), Line: s.f.line, Function: s.f.function})
}

// UnmarshalJSON decodes what MarshalJSON wrote. A decoded Site is not
// interned: compare two by File, Line and Function.
func (s *Site) UnmarshalJSON(b []byte) error {
	var v *siteJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("gpu: a Site is an object {file, line, function}: %w", err)
	}
	*s = Site{}
	if v != nil {
		s.f = &siteFrame{file: v.File, line: v.Line, function: v.Function}
	}
	return nil
}

// ModuleFile returns the site's file as a slash-separated path relative
// to the root of the Go module holding its function's package, such as
// "race/racetest/example_test.go": a module of the running program's
// build information or, where that lists none holding it (a test binary
// lists no dependencies), the module whose go.mod is the first above the
// file. It returns File unchanged when neither holds the package.
func (s Site) ModuleFile() string {
	if s.f == nil {
		return ""
	}
	return modpath.Rel(s.f.file, s.f.function)
}

// memoryJSON is a Memory's JSON form.
type memoryJSON struct {
	ID       uint64 `json:"id"`
	DeviceID uint64 `json:"device_id"`
	Name     string `json:"name"`
	Space    Space  `json:"space"`
	BlockID  int    `json:"block_id"`
	Block    *Dim3  `json:"block,omitempty"`
	Type     string `json:"type"`
	ElemSize int    `json:"elem_size"`
	Len      int    `json:"len"`
}

// MarshalJSON encodes m's description: {"id", "device_id", "name", "space",
// "block_id", "block" (the owning block's [x,y,z], for shared memory
// only), "type", "elem_size", "len"}. Its contents are not encoded.
func (m *Memory) MarshalJSON() ([]byte, error) {
	v := memoryJSON{ID: m.ID, DeviceID: m.DeviceID, Name: m.Name, Space: m.Space, BlockID: m.Block, Type: m.Type, ElemSize: m.ElemSize, Len: m.Len}
	if m.Space == SharedSpace {
		v.Block = &m.blockIdx
	}
	return json.Marshal(v)
}

// UnmarshalJSON decodes what MarshalJSON wrote into a detached
// description: a decoded Memory names an allocation, and by DeviceID the
// device that made it, for reports read back, but holds no elements and
// belongs to no device (Device returns nil).
func (m *Memory) UnmarshalJSON(b []byte) error {
	var v memoryJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("gpu: a Memory is an object {id, name, space, ...}: %w", err)
	}
	*m = Memory{ID: v.ID, DeviceID: v.DeviceID, Name: v.Name, Space: v.Space, Block: v.BlockID, Type: v.Type, ElemSize: v.ElemSize, Len: v.Len}
	if v.Block != nil {
		m.blockIdx = *v.Block
	}
	return nil
}
