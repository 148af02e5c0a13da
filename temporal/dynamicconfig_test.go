package temporal

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/dynamicconfig"
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
