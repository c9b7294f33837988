package race

import "github.com/warpguard/warpguard/race/report"

// A Report describes one race: the memory word, the two accesses, and the
// evidence that nothing ordered them. It is [report.Report], declared in
// a leaf package so that each of the detector's checking engines builds
// reports without importing the detector; its fields, methods and JSON
// form are documented there.
type Report = report.Report

// A Side is one access of a race. It is [report.Side], declared beside
// [report.Report].
type Side = report.Side

// ReportSchema is the version of the JSON form of a [Report], as
// [report.Schema] describes it.
const ReportSchema = report.Schema
