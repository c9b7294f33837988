package report

import (
	"encoding/json"
	"fmt"
)

// Schema is the version of the JSON form of a [Report]. It changes
// only when a field changes meaning or goes away; new fields may appear
// within a version, and readers ignore fields they do not know.
//
// A Report encodes as one object:
//
//	{
//	  "schema": 1,
//	  "kind": "missing-device-fence",   // a kind.Kind name
//	  "launch": "publish",              // gpu.LaunchConfig.Name
//	  "memory": {"id": 3, "device_id": 1, "name": "data", "space": "global",
//	             "block_id": -1, "type": "float32", "elem_size": 4, "len": 1},
//	  "index": 0,
//	  "current":  {side},
//	  "previous": {side},
//	  "evidence": "The writer, ..."
//	}
//
// A shared memory's object also carries "block": [x,y,z], its block's
// coordinates. Each side is
//
//	{"block": [1,0,0], "thread": [0,0,0], "block_id": 1, "global_id": 1,
//	 "warp": 0, "lane": 0, "op": "load", "order": "weak", "scope": "thread",
//	 "site": {"file": "race/racetest/example_test.go", "line": 39,
//	          "function": "github.com/.../racetest_test.ExampleLaunch.func1"},
//	 "stack": [{site}, ...]}
//
// with coordinates as [x,y,z] arrays (threadIdx and blockIdx), operations,
// orders and scopes by name, and the site's file relative to the root of
// its Go module; "site" is null where the site is unknown. "stack", with
// history only, lists the side's kernel frames innermost first, "site"
// first.
const Schema = 1

// reportFields is Report without its methods, so that encoding it uses
// the field tags.
type reportFields Report

type reportJSON struct {
	Schema int `json:"schema"`
	reportFields
}

// MarshalJSON encodes r as the object [Schema] describes.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(reportJSON{Schema: Schema, reportFields: reportFields(r)})
}

// UnmarshalJSON decodes a report MarshalJSON wrote. Its memory is a
// detached description (see [gpu.Memory.UnmarshalJSON]), and its sites
// compare by file, line and function, not by identity.
func (r *Report) UnmarshalJSON(b []byte) error {
	var v reportJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("race: decoding a report: %w", err)
	}
	if v.Schema != Schema {
		return fmt.Errorf("race: report schema %d; this package reads schema %d", v.Schema, Schema)
	}
	*r = Report(v.reportFields)
	return nil
}
