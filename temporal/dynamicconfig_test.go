package temporal

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
)

func valueOf(t *testing.T, dc dynamicconfig.StaticClient, name string) any {
	t.Helper()
	cvs := dc.GetValue(dynamicconfig.MakeKey(name))
	require.Len(t, cvs, 1, name)
	return cvs[0].Value
}

// The file docker-compose mounts must be one the server reads without a
// warning: an unknown key (a typo, a setting renamed by a server upgrade) would
// otherwise be ignored and leave the default latency in place.
func TestHubYAMLIsValidForTheServer(t *testing.T) {
	t.Parallel()
	onDisk, err := os.ReadFile("dynamicconfig/hub.yaml")
	require.NoError(t, err)
	require.Equal(t, string(onDisk), string(hubDynamicConfig))

	values, err := loadHubDynamicConfig()
	require.NoError(t, err)
	for _, name := range []string{
		"history.transferProcessorMaxPollRPS",
		"matching.numTaskqueueReadPartitions",
		"matching.numTaskqueueWritePartitions",
		"history.longPollExpirationInterval",
		"system.enableActivityEagerExecution",
		"system.enableEagerWorkflowStart",
	} {
		require.Contains(t, values, dynamicconfig.MakeKey(name))
	}
}

func TestDynamicConfigLayers(t *testing.T) {
	t.Parallel()

	tuned, err := dynamicConfig(false, nil)
	require.NoError(t, err)
	require.Equal(t, 1000, valueOf(t, tuned, "history.transferProcessorMaxPollRPS"))
	require.Equal(t, false, valueOf(t, tuned, "worker.historyScannerEnabled"))

	stock, err := dynamicConfig(true, nil)
	require.NoError(t, err)
	require.Empty(t, stock.GetValue(dynamicconfig.MakeKey("history.transferProcessorMaxPollRPS")))
	require.Equal(t, false, valueOf(t, stock, "worker.historyScannerEnabled"), "embedded-only settings apply in stock mode too")

	overridden, err := dynamicConfig(false, map[string]any{"history.transferProcessorMaxPollRPS": 20})
	require.NoError(t, err)
	require.Equal(t, 20, valueOf(t, overridden, "history.transferProcessorMaxPollRPS"))

	_, err = dynamicConfig(false, map[string]any{"history.noSuchSetting": 1})
	require.ErrorContains(t, err, "history.noSuchSetting")
}

// The embedded server's memory bounds are read by the server through its own
// typed settings (the way the history service reads them at start), so a
// misspelled key or a value of the wrong shape fails here instead of leaving
// the unbounded default: 128,000 cached workflows kept for an hour.
func TestEmbeddedServerBoundsItsCaches(t *testing.T) {
	t.Parallel()
	for _, stock := range []bool{false, true} {
		dc, err := dynamicConfig(stock, nil)
		require.NoError(t, err)
		col := dynamicconfig.NewCollection(dc, log.NewNoopLogger())
		require.Equal(t, historyCacheMaxSizeValue, dynamicconfig.HistoryCacheHostLevelMaxSize.Get(col)(), "stock=%v", stock)
		require.Less(t, dynamicconfig.HistoryCacheHostLevelMaxSize.Get(col)(), 1000)
		require.False(t, dynamicconfig.HistoryCacheSizeBasedLimit.Get(col)(), "the bound is an entry count")
		require.Equal(t, 5*time.Minute, dynamicconfig.HistoryCacheTTL.Get(col)())
		evict := dynamicconfig.HistoryCacheBackgroundEvict.Get(col)()
		require.True(t, evict.Enabled)
		require.Equal(t, time.Minute, evict.LoopInterval)
		require.Equal(t, 1024, evict.MaxEntryPerCall)
		require.Equal(t, 64*1024, dynamicconfig.XDCCacheMaxSizeBytes.Get(col)())
	}
	// An override still wins.
	dc, err := dynamicConfig(false, map[string]any{historyCacheMaxSize: 10})
	require.NoError(t, err)
	require.Equal(t, 10, dynamicconfig.HistoryCacheHostLevelMaxSize.Get(dynamicconfig.NewCollection(dc, log.NewNoopLogger()))())
}
