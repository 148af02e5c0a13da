package temporal

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"

	"go.temporal.io/server/common/dynamicconfig"
	"gopkg.in/yaml.v3"
)

// hubDynamicConfig is Hub's tuning of the Temporal server, the same file the
// docker-compose Temporal server mounts; docs/temporal.md explains each value.
//
//go:embed dynamicconfig/hub.yaml
var hubDynamicConfig []byte

// embeddedOnly are settings for the embedded server alone (docs/temporal.md),
// applied in tuned and stock mode alike.
//
// The scanners and the parent-close policy processor are off because the
// server starts their SDK workers and never stops them, so every Stop would
// leave goroutines polling a server that is gone; a dev database does
// without their housekeeping.
//
// The rest bound the memory the server keeps between turns ("Memory"): its
// defaults are sized for a host that serves only Temporal.
var embeddedOnly = map[string]any{
	"worker.taskQueueScannerEnabled":       false,
	"worker.historyScannerEnabled":         false,
	"system.enableParentClosePolicyWorker": false,

	// The workflow cache kept every turn touched, closed ones too, for an
	// hour; one not in it is read back from SQLite in one query.
	historyCacheMaxSize: historyCacheMaxSizeValue,
	"history.cacheTTL":  "5m",
	// Without background eviction an idle server kept expired entries.
	"history.cacheBackgroundEvict": map[string]any{"Enabled": true, "LoopInterval": "1m", "MaxEntryPerCall": 1024},
	// One cluster replicates nothing; 64 KiB is the server's minimum.
	"history.xdcCacheMaxSizeBytes": 64 * 1024,
}

// The history cache bound, named for the test that checks the server reads it.
const (
	historyCacheMaxSize      = "history.hostLevelCacheMaxSize"
	historyCacheMaxSizeValue = 256
)

// dynamicConfig builds the embedded server's dynamic config: Hub's tuning
// (unless stock), embeddedOnly, then the overrides. A key the server does not
// know or a value it would reject is an error, not a warning, so a typo or a
// setting renamed by a server upgrade fails the tests.
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
