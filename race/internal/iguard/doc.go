// Package iguard is the default checking engine of package race: iGUARD's
// design (SOSP'21), one metadata entry per granule of memory, checked
// inline on the accessing thread's goroutine under the entry's lock.
//
// Package race's Detector drives an [Engine]: it builds its [Config] from
// race.Options, hands it the site cache and report sink of package
// race/internal/shared, and forwards each observer event to it. The
// engine imports shared and the leaves race/kind and race/report, never
// package race. Package race's doc describes the rules the engine checks
// and the layout of its metadata.
package iguard
