package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

// anything stands for every production package of ours (not the test-only ones: dbtest, hubtest,
// mcpapps/mcptest, web/webtest, e2e, chaos).
const anything = "*"

// productionRules is the layer map of docs/architecture.md, "Layers and imports": for each
// package of module hub (its path under hub/), the packages of ours its non-test files may
// import. A package missing here fails the test, so a new package is placed in the map the day
// it is added.
var productionRules = map[string][]string{
	// The composition roots. cmd/hub is the binary; wiring is the one constructor of the whole
	// graph, shared by cmd/hub and hubtest.
	"cmd/hub": {anything},
	"wiring":  {anything},
	// config reads the environment into each package's own settings.
	"config": {"api", "apps", "assistant", "files", "identity", "llm", "traces", "web", "workflows"},
	"worker": {"activities", "workflows"},
	// api reaches the database only through workspace, chat and stream; its readiness
	// ping is a function in api.Deps.
	"api": {"assistant", "chat", "files", "identity", "llm", "mcpapps", "openapi", "retrieval", "workspace", "stream", "traces", "turns", "usage", "workflows"},
	// turns starts a person's turn: its message checked and saved, its workflow started.
	"turns":      {"assistant", "chat", "files", "workflows", "workspace"},
	"workflows":  {"activities"},
	"activities": {"assistant", "chat", "files", "workspace", "llm", "mcpapps", "playbooks", "retrieval", "stream", "tools", "toolrun", "usage"},
	// toolrun runs one call exactly once, for activities' RunTool, ApplySpace and ApplyStep.
	"toolrun":   {"tools", "chat", "workspace"},
	"assistant": {"chat", "workspace", "llm", "playbooks", "tools"},
	"tools":     {"apps", "files", "retrieval", "web", "workspace"},
	// retrieval indexes files (web's extractors) and searches passages.
	"retrieval": {"files", "storage", "web", "workspace"},
	"chat":      {"workspace", "storage", "notify", "stream"},
	"files":     {"workspace", "storage"},
	"workspace": {"storage"},
	"stream":    {"storage", "notify"},
	// notify is a process's one waker of followers (one LISTEN, one poll)
	// and the one wake-only NOTIFY; stream and chat, which stay apart,
	// both register their feeds with it.
	"notify": {"storage"},
	// usage keeps model calls' usage and cost, and the spaces' budgets.
	"usage": {"llm", "storage"},
	"llm":   {},
	"apps":  {},
	// identity checks the OpenID Connect provider's tokens (go-oidc); api maps their subjects
	// to people through workspace.
	"identity": {},
	// web searches and reads pages; its connections go through apps.Guard.
	"web": {"apps"},
	// mcpapps lists and calls MCP servers' tools (the official SDK), through apps.Guard.
	"mcpapps":   {"apps", "tools", "workspace"},
	"playbooks": {},
	// traces makes OpenTelemetry spans for the api, Temporal, SQL and the model's HTTP.
	"traces": {},
	// openapi reflects Go types into an OpenAPI 3.1 document; api describes its routes with it.
	"openapi":   {},
	"storage":   {},
	"temporal":  {},
	"fakemodel": {},
	// bench drives a Hub through its HTTP api only: the stand-in model it scripts, and llm for
	// the plain loop's model calls; nothing of the server.
	"bench": {"fakemodel", "llm"},
	// console is the web console's embedded files and their handler; a client of the api
	// over HTTP, it imports nothing of ours.
	"console": {},
	// Packages that are only their tests.
	"deploy":          {},
	"internal/layers": {},
}

// testOnly are the packages that exist for tests, with what their non-test files may import.
// None of them may be imported by production code.
var testOnly = map[string][]string{
	// dbtest makes a database and migrates it.
	"dbtest": {"storage"},
	// hubtest starts the whole product in a test, through wiring.
	"hubtest": {anything, "dbtest"},
	// mcpapps/mcptest is an MCP server on loopback (the SDK's handler) for mcpapps' and e2e's tests.
	"mcpapps/mcptest": {},
	// web/webtest makes web's test inputs (a PDF bomb's stream) for web's and e2e's tests.
	"web/webtest": {},
	// e2e and chaos are only _test.go files (below).
	"e2e":   {},
	"chaos": {},
}

// harnesses may be imported only by the test files of these packages: a unit test that needs
// the whole product is an end-to-end test, and lives in e2e (or chaos, which kills it).
var harnesses = map[string][]string{
	"hubtest": {"e2e", "chaos"},
}

// onlyFromRoots may be imported by these packages' non-test files only.
var onlyFromRoots = map[string][]string{
	"wiring": {"cmd/hub", "hubtest"},
}

type listedPackage struct {
	ImportPath   string
	Name         string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
}

// TestImportsFollowTheLayerMap fails on every import between packages of ours that the map
// does not allow, naming the edge and the rule.
func TestImportsFollowTheLayerMap(t *testing.T) {
	packages := listPackages(t)
	known := map[string]bool{}
	for _, p := range packages {
		known[p.ImportPath] = true
	}
	for rule := range productionRules {
		if !known[rule] {
			t.Logf("the map names %s, which does not exist (yet)", rule)
		}
	}

	used := map[[2]string]bool{}
	for _, p := range packages {
		for _, imp := range ours(p.Imports) {
			used[[2]string{p.ImportPath, imp}] = true
		}
	}
	// An allowed edge nobody uses is not wrong (it may be planned), but the map may be tightened.
	for from, allowed := range productionRules {
		for _, to := range allowed {
			if to != anything && known[from] && known[to] && !used[[2]string{from, to}] {
				t.Logf("the map lets %s import %s, which it does not (any more?)", from, to)
			}
		}
	}

	for _, p := range packages {
		_, production := productionRules[p.ImportPath]
		_, testPackage := testOnly[p.ImportPath]
		if !production && !testPackage {
			t.Errorf("package %s is not in the layer map; place it there first", p.ImportPath)
			continue
		}
		for _, imp := range ours(p.Imports) {
			if why := productionImportRefused(p.ImportPath, imp); why != "" {
				t.Errorf("%s imports %s: %s", p.ImportPath, imp, why)
			}
		}
		for _, imp := range ours(slices.Concat(p.TestImports, p.XTestImports)) {
			if why := testImportRefused(p.ImportPath, imp); why != "" {
				t.Errorf("%s's tests import %s: %s", p.ImportPath, imp, why)
			}
		}
	}
	if t.Failed() {
		t.Log("the layer map is docs/architecture.md, \"Layers and imports\", and internal/layers/layers_test.go: " +
			"change the import, or the map in both places if the new direction is right")
	}
}

// productionImportRefused says why the non-test files of from may not import to ("" if they may).
func productionImportRefused(from, to string) string {
	allowed, production := productionRules[from]
	if !production {
		var ok bool
		if allowed, ok = testOnly[from]; !ok {
			return "package " + from + " is not in the layer map; place it there first"
		}
	}
	if roots, ok := onlyFromRoots[to]; ok && !slices.Contains(roots, from) {
		return to + " is the composition root: only " + strings.Join(roots, " and ") + " import it"
	}
	if _, ok := testOnly[to]; ok {
		if slices.Contains(allowed, to) {
			return ""
		}
		return to + " is for tests; only test files (and hubtest) import it"
	}
	if _, ok := productionRules[to]; !ok {
		return "package " + to + " is not in the layer map; place it there first"
	}
	if slices.Contains(allowed, anything) || slices.Contains(allowed, to) {
		return ""
	}
	return "the map lets " + from + " import " + list(allowed)
}

// testImportRefused says why the test files of from may not import to ("" if they may). A
// test may import any package of ours (the compiler refuses cycles) but the harnesses, which
// only end-to-end tests use, and the composition roots. A package's own external tests
// (package x_test) may always import it.
func testImportRefused(from, to string) string {
	if from == to {
		return ""
	}
	if users, ok := harnesses[to]; ok && !slices.Contains(users, from) {
		return to + " starts the whole product: only the tests of " + strings.Join(users, " and ") + " use it"
	}
	if _, ok := onlyFromRoots[to]; ok {
		return to + " is the composition root: tests get it through hubtest"
	}
	_, production := productionRules[to]
	_, testPackage := testOnly[to]
	if !production && !testPackage {
		return "package " + to + " is not in the layer map; place it there first"
	}
	return ""
}

// listPackages runs go list over the module, with every build tag of ours, so files behind
// e2e and chaos are seen too.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-tags", "e2e,chaos", "-json=ImportPath,Name,Imports,TestImports,XTestImports,Error", "hub/...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var packages []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, "hub/")
		packages = append(packages, p)
	}
	if len(packages) < 10 {
		t.Fatalf("go list found %d packages of module hub; expected all of them", len(packages))
	}
	return packages
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// ours keeps the imports of module hub, as paths under hub/, each once.
func ours(imports []string) []string {
	var paths []string
	for _, imp := range imports {
		if path, ok := strings.CutPrefix(imp, "hub/"); ok && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	return paths
}

func list(packages []string) string {
	if len(packages) == 0 {
		return "no package of ours"
	}
	sorted := slices.Sorted(slices.Values(packages))
	return "only " + strings.Join(sorted, ", ")
}
