package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/kernels"
)

func kernelNames(c kernels.Catalog) []string {
	var out []string
	for _, k := range c {
		out = append(out, k.Name)
	}
	return out
}

// TestSelectKernels: the large-grid group joins a selection only when a
// pattern starting with large/ names it, after the catalog's kernels.
func TestSelectKernels(t *testing.T) {
	all, err := selectKernels(kernels.All(), "")
	require.NoError(t, err)
	assert.Equal(t, kernelNames(kernels.All()), kernelNames(all), "the empty pattern: the catalog, no large kernel")
	every, err := selectKernels(kernels.All(), "*/*")
	require.NoError(t, err)
	assert.Len(t, every, len(kernels.All()), "*/* does not name the large group")
	large, err := selectKernels(kernels.All(), "large/*")
	require.NoError(t, err)
	assert.Equal(t, kernelNames(kernels.Large()), kernelNames(large))
	mixed, err := selectKernels(kernels.All(), "large/saxpy, lib/scan")
	require.NoError(t, err)
	assert.Equal(t, []string{"lib/scan", "large/saxpy"}, kernelNames(mixed))
	_, err = selectKernels(kernels.All(), "large/nosuch")
	require.ErrorContains(t, err, `no kernel matches "large/nosuch"`)
	_, err = selectKernels(kernels.All(), "large/[")
	require.ErrorContains(t, err, `"large/["`)
}

// TestLookupKernel: run finds the large kernels by name too.
func TestLookupKernel(t *testing.T) {
	for _, name := range []string{"lib/scan", "large/transpose"} {
		k, ok := lookupKernel(name)
		require.True(t, ok, name)
		assert.Equal(t, name, k.Name)
	}
	_, ok := lookupKernel("large/nosuch")
	assert.False(t, ok)
}
