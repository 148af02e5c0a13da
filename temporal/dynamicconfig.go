package temporal

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"

	"go.temporal.io/server/common/dynamicconfig"
	"gopkg.in/yaml.v3"
)

// hubDynamicConfig is Hub's tuning of the Temporal server, in the server's own
// dynamic config file format. The same file is mounted into the
// docker-compose Temporal server, so `hub dev`, the tests and production run
// with one set of values. docs/temporal.md explains each value.
//
//go:embed dynamicconfig/hub.yaml
var hubDynamicConfig []byte

// embeddedOnly are settings for the embedded server alone, applied in both
// tuned and stock mode and not part of hub.yaml (a production cluster keeps the
// server's defaults for them).
//
// They turn off the worker service's background scanners and its parent-close
// policy processor. In server v1.32.2 their SDK workers are started and never
// stopped (service/worker/scanner/scanner.go: "Nothing is gracefully stopping
// these workers"), so every Stop of an embedded server would leave ~100
// goroutines polling a server that is gone. Nothing Hub relies on is lost: the
// task queue scanner prunes old task queue rows and the history scanner
// deletes history branches orphaned for 60 days, both housekeeping a dev
// database does without; with the processor off, history applies parent-close
// policies itself (it uses the processor only for parents with 10 or more
// children).
//
// The rest bound the memory the server keeps between turns (docs/temporal.md,
// "Memory"): its defaults are sized for a host that serves only Temporal,
// while the embedded server shares `hub dev`'s process with Hub.
var embeddedOnly = map[string]any{
	"worker.taskQueueScannerEnabled":       false,
	"worker.historyScannerEnabled":         false,
	"system.enableParentClosePolicyWorker": false,

	// The history service's workflow cache keeps one mutable state per
	// workflow it touched, closed ones too, for an hour (default 128,000
	// entries): every turn stayed in memory, ~25 KB of live heap each and
	// more in the half-empty spans they pinned. A workflow not in the cache
	// is read back from SQLite in one query (a turn resumed after a pause, a
	// query of an old turn); running turns are at the front of the LRU.
	historyCacheMaxSize: historyCacheMaxSizeValue,
	"history.cacheTTL":  historyCacheTTLValue,
	// Without background eviction an expired entry is only dropped when it
	// is touched or pushed out, so an idle server kept them all.
	"history.cacheBackgroundEvict": map[string]any{"Enabled": true, "LoopInterval": "1m", "MaxEntryPerCall": 1024},
	// Serialized events kept for cross-cluster replication (default 8 MiB,
	// filled by every history write). One cluster replicates nothing; 64 KiB
	// is the server's minimum.
	"history.xdcCacheMaxSizeBytes": 64 * 1024,
}

// The history cache bound, named for the test that checks the server reads it.
const (
	historyCacheMaxSize      = "history.hostLevelCacheMaxSize"
	historyCacheMaxSizeValue = 256
	historyCacheTTLValue     = "5m"
)

// dynamicConfig builds the embedded server's dynamic config: Hub's tuning
// (unless stock is set), embeddedOnly, then the overrides. A key the server does not know or
// a value it would reject is an error, not a warning, so a typo in hub.yaml or
// a setting renamed by a server upgrade fails the tests instead of silently
// leaving the default in place.
func dynamicConfig(stock bool, overrides map[string]any) (dynamicconfig.StaticClient, error) {
	dc := dynamicconfig.StaticClient{}
	if !stock {
		values, err := loadHubDynamicConfig()
		if err != nil {
			return nil, err
		}
		for k, v := range values {
			dc[k] = v
		}
	}
	merged := make(map[string]any, len(embeddedOnly)+len(overrides))
	maps.Copy(merged, embeddedOnly)
	maps.Copy(merged, overrides)
	for name, v := range merged {
		// Through the YAML loader too, for the same checks as hub.yaml.
		doc, err := yaml.Marshal([]map[string]any{{"value": v}})
		if err != nil {
			return nil, fmt.Errorf("dynamic config %s: %w", name, err)
		}
		var l dynamicconfig.YamlLoader
		key := dynamicconfig.MakeKey(name)
		l.LoadValue(key, doc)
		if err := errors.Join(append(l.Errors, l.Warnings...)...); err != nil {
			return nil, fmt.Errorf("dynamic config %s: %w", name, err)
		}
		dc[key] = l.Map[key]
	}
	return dc, nil
}

// loadHubDynamicConfig parses the embedded hub.yaml.
func loadHubDynamicConfig() (dynamicconfig.ConfigValueMap, error) {
	l := dynamicconfig.LoadYamlFile(hubDynamicConfig)
	if err := errors.Join(append(l.Errors, l.Warnings...)...); err != nil {
		return nil, fmt.Errorf("dynamicconfig/hub.yaml: %w", err)
	}
	return l.Map, nil
}
