package gpu_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

func TestVocabularyJSON(t *testing.T) {
	t.Parallel()
	type all struct {
		Op    gpu.Op    `json:"op"`
		Order gpu.Order `json:"order"`
		Space gpu.Space `json:"space"`
		Dim   gpu.Dim3  `json:"dim"`
		Site  gpu.Site  `json:"site"`
	}
	v := all{Op: gpu.OpCAS, Order: gpu.Release, Space: gpu.SharedSpace, Dim: gpu.Dim3{X: 3, Y: 2, Z: 1}}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"op":"atomicCAS","order":"release","space":"shared","dim":[3,2,1],"site":null}`, string(b))
	var back all
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, v, back)
	require.ErrorContains(t, json.Unmarshal([]byte(`{"op":"atomicFoo"}`), &back), "atomicFoo")
	require.ErrorContains(t, json.Unmarshal([]byte(`{"order":"seq_cst"}`), &back), "seq_cst")
	require.ErrorContains(t, json.Unmarshal([]byte(`{"dim":{"X":1}}`), &back), "[x,y,z]")
	_, err = json.Marshal(gpu.Op(200))
	require.Error(t, err)
}

func TestSiteJSON(t *testing.T) {
	t.Parallel()
	var s gpu.Site
	require.NoError(t, json.Unmarshal([]byte(`{"file":"gpu/x.go","line":12,"function":"github.com/warpguard/warpguard/gpu.F"}`), &s))
	require.Equal(t, "gpu/x.go:12", s.String())
	require.Equal(t, "github.com/warpguard/warpguard/gpu.F", s.Function())
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, `{"file":"gpu/x.go","line":12,"function":"github.com/warpguard/warpguard/gpu.F"}`, string(b))
	require.NoError(t, json.Unmarshal([]byte(`null`), &s))
	require.True(t, s.IsZero())
}

// TestMemoryJSONDevice: a memory's JSON names its device, and decodes
// to a description with the same DeviceID that belongs to no device.
func TestMemoryJSONDevice(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	m := gpu.Alloc[float32](d, "x", 3).Memory()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.JSONEq(t, fmt.Sprintf(`{"id":%d,"device_id":%d,"name":"x","space":"global","block_id":-1,"type":"float32","elem_size":4,"len":3}`, m.ID, d.ID()), string(b))
	var back gpu.Memory
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, d.ID(), back.DeviceID)
	require.Equal(t, m.ID, back.ID)
	require.Nil(t, back.Device())
}
