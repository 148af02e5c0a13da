// Package temporal runs an embedded Temporal server for `hub dev` and for
// tests, tuned for Hub, and registers Hub's search attributes on any Temporal
// server.
//
// The embedded server is the real server (go.temporal.io/server) with all its
// services in this process, persisting to SQLite (a file for `hub dev`, memory
// for tests), optionally with the Temporal UI. See docs/temporal.md.
package temporal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	temporalserver "go.temporal.io/server/temporal"
)

// DefaultNamespace is the namespace Start creates when Options.Namespace is
// empty, the one the Temporal CLI and UI open by default.
const DefaultNamespace = "default"

// clusterName is stored in the SQLite file on first start and must never
// change, or the server refuses the file.
const clusterName = "active"

// Options configures an embedded server. The zero value (plus FrontendAddr) is
// a quiet in-memory server with Hub's tuning and no UI.
type Options struct {
	// DatabaseFile is the SQLite file the server persists to, created with
	// the schema if missing (its folder must exist). Empty: in memory.
	DatabaseFile string
	// Namespace is created at start if missing. Default DefaultNamespace.
	Namespace string
	// FrontendAddr is where clients reach the server, as host:port. Port 0
	// picks a free port (FrontendHostPort reports it). Default
	// "127.0.0.1:7233", the address every Temporal tool assumes.
	FrontendAddr string
	// UIAddr is where the Temporal UI is served (port 0: a free one); empty: no UI.
	UIAddr string
	// SearchAttributes are registered on the namespace at start when missing.
	SearchAttributes map[string]enumspb.IndexedValueType
	// Logger receives the server's log lines at LogLevel and above; nil discards them.
	Logger *slog.Logger
	// LogLevel is the lowest server log level passed on to Logger. Nil:
	// slog.LevelWarn, as the server's info lines say nothing about Hub.
	LogLevel *slog.Level
	// StockDynamicConfig starts with Temporal's own defaults instead of
	// Hub's tuning: for the benchmark of the tuning.
	StockDynamicConfig bool
	// sqliteAttributes are added to a file database's connect attributes
	// (PRAGMAs), for the benchmark that compares them.
	sqliteAttributes map[string]string
}

// Server is a running embedded Temporal server. Stop it when done.
type Server struct {
	server       temporalserver.Server
	ui           *uiServer
	frontendAddr string
	namespace    string

	stopOnce sync.Once
	stopErr  error
}

// Start starts a Temporal server in this process and returns once it accepts
// calls, its namespace exists with the requested search attributes, and the UI
// (if asked for) serves. On error nothing it started is left running.
func Start(ctx context.Context, opts Options) (*Server, error) {
	opts.Namespace = cmp.Or(opts.Namespace, DefaultNamespace)
	opts.FrontendAddr = cmp.Or(opts.FrontendAddr, "127.0.0.1:7233")
	host, port, err := resolveAddr(opts.FrontendAddr)
	if err != nil {
		return nil, fmt.Errorf("frontend: %w", err)
	}
	// A taken frontend port would make the server's gRPC Serve panic on a
	// nil listener; say so instead.
	if _, p, _ := net.SplitHostPort(opts.FrontendAddr); p != "0" {
		if err := checkPortFree(host, port); err != nil {
			return nil, fmt.Errorf("frontend address %s: %w", opts.FrontendAddr, err)
		}
	}
	frontendAddr := net.JoinHostPort(dialHost(host), strconv.Itoa(port))

	dc, err := dynamicConfig(opts.StockDynamicConfig, nil)
	if err != nil {
		return nil, err
	}
	sqlConf, err := prepareDatabase(opts.DatabaseFile, opts.Namespace, opts.SearchAttributes, opts.sqliteAttributes)
	if err != nil {
		return nil, err
	}
	conf, hosts, err := serverConfig(host, port, sqlConf)
	if err != nil {
		return nil, err
	}

	logger := slogLogger{log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)), minLevel: slog.LevelWarn}
	if opts.LogLevel != nil {
		logger.minLevel = *opts.LogLevel
	}
	// Authorization stays off (no-op): the server binds to the address the
	// caller chose, loopback for `hub dev` and tests.
	srv, err := temporalserver.NewServer(
		temporalserver.WithConfig(conf),
		temporalserver.ForServices(temporalserver.DefaultServices),
		temporalserver.WithStaticHosts(hosts),
		temporalserver.WithLogger(logger),
		temporalserver.WithDynamicConfigClient(dc),
		temporalserver.WithAuthorizer(authorization.NewNoopAuthorizer()),
		temporalserver.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return authorization.NewNoopClaimMapper() }),
	)
	if err != nil {
		return nil, fmt.Errorf("create temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start temporal server: %w", err)
	}
	s := &Server{server: srv, frontendAddr: frontendAddr, namespace: opts.Namespace}

	if err := s.ensureNamespaceReady(ctx, opts.SearchAttributes); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	if opts.UIAddr != "" {
		if s.ui, err = startUI(ctx, opts.UIAddr, frontendAddr, opts.Namespace); err != nil {
			return nil, errors.Join(err, s.Stop())
		}
	}
	return s, nil
}

// FrontendHostPort is the host:port SDK clients and the Temporal CLI dial
// (TEMPORAL_ADDRESS).
func (s *Server) FrontendHostPort() string { return s.frontendAddr }

// Namespace is the namespace Start created or found.
func (s *Server) Namespace() string { return s.namespace }

// UIURL is the Temporal UI's address, or "" when the UI was not asked for.
func (s *Server) UIURL() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.url
}

// Stop stops the UI and the server; calling it again returns the first
// call's result. Stop the SDK workers and clients first: a worker whose
// server disappears retries its polls for a long time.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if s.ui != nil {
			errs = append(errs, s.ui.stop())
		}
		if err := s.server.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop temporal server: %w", err))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// ensureNamespaceReady registers any search attribute the namespace lacks (a
// database file older than the attribute) and waits until the frontend
// accepts queries on them. The namespace itself was written into the
// database before start: much faster than through the API.
func (s *Server) ensureNamespaceReady(ctx context.Context, attrs map[string]enumspb.IndexedValueType) error {
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  s.frontendAddr,
		Namespace: s.namespace,
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
		// The SDK's 5 s is too short for a frontend just launched on a busy
		// machine (the race detector, tests starting servers side by side).
		ConnectionOptions: client.ConnectionOptions{GetSystemInfoTimeout: time.Minute},
	})
	if err != nil {
		return fmt.Errorf("dial embedded server: %w", err)
	}
	defer c.Close()
	return EnsureSearchAttributes(ctx, c, s.namespace, attrs)
}

// prepareDatabase returns the SQLite configuration and makes sure the
// database has the schema and the namespace.
func prepareDatabase(file, namespace string, attrs map[string]enumspb.IndexedValueType, extra map[string]string) (*config.SQL, error) {
	conf := &config.SQL{PluginName: sqliteplugin.PluginName}
	if file == "" {
		// A shared-cache in-memory database lives while a connection is open
		// (the plugin keeps its connections); a random name keeps servers in
		// one process apart.
		conf.DatabaseName = "hub-" + strconv.FormatUint(rand.Uint64(), 36)
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
	} else {
		conf.DatabaseName = file
		conf.ConnectAttributes = map[string]string{
			"mode": "rwc",
			// WAL appends each commit to the log, and synchronous=NORMAL skips
			// the fsync per commit (a power cut may lose the last commits, never
			// corrupt the file): ~7 ms less per round trip, docs/temporal.md.
			"journal_mode": "wal",
			"synchronous":  "normal",
		}
		maps.Copy(conf.ConnectAttributes, extra)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(filepath.Dir(file)); err != nil {
				return nil, fmt.Errorf("temporal database folder: %w", err)
			}
			if err := sqliteschema.SetupSchema(conf); err != nil {
				return nil, fmt.Errorf("create temporal schema in %s: %w", file, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("temporal database: %w", err)
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, namespace, false, attrs)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", namespace, err)
	}
	// A no-op when the namespace exists: later attributes go through the API.
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return nil, fmt.Errorf("create namespace %s: %w", namespace, err)
	}
	return conf, nil
}

// serverConfig is the static configuration of a single-host server: all four
// services in this process, found through static hosts (faster to start
// than ringpop gossip), one history shard, archival off.
func serverConfig(frontendHost string, frontendPort int, sqlConf *config.SQL) (*config.Config, map[primitives.ServiceName]static.Hosts, error) {
	// Internal services stay on loopback when the frontend listens everywhere.
	host := dialHost(frontendHost)
	frontendAddr := net.JoinHostPort(host, strconv.Itoa(frontendPort))
	conf := &config.Config{}
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = host
	conf.Persistence.DefaultStore = "sqlite"
	conf.Persistence.VisibilityStore = "sqlite"
	// One shard: more gain a single host nothing and each adds queue processors.
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlConf}}
	conf.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontendAddr},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	// The server's own system workers dial this address.
	conf.PublicClient.HostPort = frontendAddr

	conf.Services = map[string]config.Service{}
	hosts := map[primitives.ServiceName]static.Hosts{}
	for _, svc := range []primitives.ServiceName{
		primitives.FrontendService, primitives.HistoryService, primitives.MatchingService, primitives.WorkerService,
	} {
		port, bind := frontendPort, frontendHost
		if svc != primitives.FrontendService {
			p, err := freePort(host)
			if err != nil {
				return nil, nil, fmt.Errorf("%s service: %w", svc, err)
			}
			port, bind = p, host
		}
		conf.Services[string(svc)] = config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: bind}}
		hosts[svc] = static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return conf, hosts, nil
}
