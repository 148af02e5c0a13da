// Command gen writes the retrieval evaluation's labelled set: the documents
// of one fictional company (Brightwater Labs) under ../docs and the
// questions with their known passages in ../questions.json. It is
// deterministic (a fixed seed): run it from retrieval/testdata/eval/gen
// with `go run .` and commit what it writes.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

type sec struct {
	heading string
	paras   []string
}

type doc struct {
	name, title, kind string
	sections          []sec
	raw               string // csv and json as written
}

type expect struct {
	File     string `json:"file"`
	Contains string `json:"contains"`
}

type question struct {
	Question string   `json:"question"`
	Query    string   `json:"query,omitempty"`
	Shape    string   `json:"shape"`
	Expect   []expect `json:"expect"`
}

var (
	r    = rand.New(rand.NewPCG(2024, 42))
	docs []doc
	qs   []question
)

func pick[T any](xs []T) T { return xs[r.IntN(len(xs))] }

// ask labels a concept question answered by the passage of file holding contains.
func ask(file, q, contains string) {
	qs = append(qs, question{Question: q, Shape: "concept", Expect: []expect{{file, contains}}})
}

// find labels an exact lookup: the person's question, the phrase looked up.
func find(file, q, phrase, contains string) {
	qs = append(qs, question{Question: q, Query: phrase, Shape: "exact", Expect: []expect{{file, contains}}})
}

// add pads d to about words (the longest documents as asked, the others
// to a third of the way above 300 words: the set stays small enough to index and
// search in seconds under the race detector) and keeps it.
func add(d doc, words int) {
	if words < 4000 {
		words = 300 + max(0, words-300)/3
	}
	pad(&d, words)
	docs = append(docs, d)
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	"October", "November", "December"}

func date(m, d int) string { return fmt.Sprintf("%d %s 2024", d, months[m-1]) }

func eur(cents int) string {
	s := fmt.Sprint(cents / 100)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return fmt.Sprintf("EUR %s.%02d", s, cents%100)
}

func main() {
	invoices()
	meetings()
	incidents()
	contracts()
	policies()
	specs()
	onboarding()
	faqs()
	tables()
	records()
	trips()
	releases()

	dir := filepath.Join("..", "docs")
	if err := os.RemoveAll(dir); err != nil {
		panic(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.name] {
			panic("two documents named " + d.name)
		}
		seen[d.name] = true
		if err := os.WriteFile(filepath.Join(dir, d.name), render(d), 0o644); err != nil {
			panic(err)
		}
	}
	for _, q := range qs {
		if !seen[q.Expect[0].File] {
			panic("a question names no document: " + q.Expect[0].File)
		}
	}
	out, err := json.MarshalIndent(struct {
		Questions []question `json:"questions"`
	}{qs}, "", "  ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join("..", "questions.json"), append(out, '\n'), 0o644); err != nil {
		panic(err)
	}
	fmt.Printf("%d documents, %d questions\n", len(docs), len(qs))
}

// words counts a document's words.
func words(d doc) int {
	n := len(strings.Fields(d.title + " " + d.raw))
	for _, s := range d.sections {
		n += len(strings.Fields(s.heading))
		for _, p := range s.paras {
			n += len(strings.Fields(p))
		}
	}
	return n
}

// pad adds background sections of the company's everyday prose until the
// document has about target words.
func pad(d *doc, target int) {
	if d.kind == "csv" || d.kind == "json" {
		return
	}
	for i := 0; words(*d) < target; i++ {
		var paras []string
		for range 2 + r.IntN(3) {
			paras = append(paras, paragraph())
		}
		d.sections = append(d.sections, sec{heading: pick(padHeadings), paras: paras})
	}
}

func paragraph() string {
	n := 3 + r.IntN(4)
	s := make([]string, n)
	for i := range s {
		s[i] = pick(filler)
	}
	return strings.Join(s, " ")
}

var padHeadings = []string{"Background", "Context", "Notes", "Further notes", "Discussion", "How we work", "Open points",
	"Follow-up", "Dependencies", "Risks", "Communication", "Related work", "Review", "Scope", "Timeline"}

// filler is everyday prose that carries no fact a question asks for, and
// shares the company's vocabulary with every document.
var filler = []string{
	"The team reviewed the dependencies with the platform group and agreed to revisit the estimate at the next checkpoint.",
	"Finance asked that every change to the budget be recorded in the shared tracker before the end of the month.",
	"Several people pointed out that the travel calendar and the release calendar overlap in the spring.",
	"The customer support team will be briefed before anything is announced to customers.",
	"Nothing in this section changes the approval rules set out in the company policies.",
	"Questions about this document go to the owner named at the top, or to the team channel.",
	"The office managers in Lisbon, Leeds and Montreal keep a copy of the current version.",
	"Contracts, invoices and purchase orders are filed in the finance workspace under the vendor's name.",
	"The security team reviews any new vendor that will hold customer data before a contract is signed.",
	"Managers approve expenses and leave in the people system; nothing is approved by email alone.",
	"A short summary was shared in the all-hands meeting and the recording is in the meetings folder.",
	"Hiring plans for the next quarter depend on the revenue forecast that finance publishes in the first week.",
	"The onboarding checklist was updated so that new joiners see the same steps in every office.",
	"Incident reviews are blameless: they describe what happened and what we change, not who was at fault.",
	"The product team keeps the roadmap in the planning space and reviews it every two weeks.",
	"Everyone is asked to keep personal data out of tickets, chat threads and meeting notes.",
	"The launch checklist covers documentation, support training, pricing pages and the status page.",
	"Where two documents disagree, the most recent policy approved by the leadership team applies.",
	"Suppliers are paid by bank transfer; the payment run happens twice a month.",
	"The data team publishes the weekly metrics on Monday mornings, including usage, revenue and support volume.",
	"Travel for customer visits is planned with the account owner and booked through the travel desk.",
	"The engineering managers rotate the chair of the weekly operations review.",
	"Any exception to this process is written down with the reason and the name of the person who approved it.",
	"The legal team keeps templates for supplier agreements, data processing agreements and non-disclosure agreements.",
	"A draft of this page was circulated for comments for two weeks before it was published.",
	"People who join mid-quarter get a shorter version of the planning cycle in their first month.",
	"The support rota is published in the team calendar, with a backup named for every shift.",
	"Feedback from customers is collected in the research repository and tagged by product area.",
	"Some of the figures in this document are estimates and will be updated when the quarter closes.",
	"The platform team owns the shared infrastructure, the deployment pipeline and the monitoring dashboards.",
	"When a deadline moves, the owner updates the tracker and tells the people who depend on it.",
	"The company offsite is planned for the autumn and will include a day of planning for every team.",
	"Teams are encouraged to write decisions down in the space where the work happens.",
	"A quarterly review compares the plan with what actually shipped and what it cost.",
	"The help desk can answer most questions about laptops, accounts and access within a working day.",
	"Meeting rooms in every office can be booked from the calendar; large rooms need a reason.",
	"The procurement process applies to software subscriptions as well as to hardware and services.",
	"We prefer fewer, longer-lived vendors to many small ones, because every vendor costs time to manage.",
	"Documents older than two years are archived, not deleted, and stay searchable in the archive space.",
	"New tools are piloted by one team for a month before they are offered to the whole company.",
}

var (
	first   = []string{"Ana", "Bruno", "Carla", "Daniel", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Keiko", "Liam", "Marta", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samir", "Tomas", "Ursula", "Victor", "Wen", "Yara", "Zoltan"}
	last    = []string{"Costa", "Fischer", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Alves", "Brennan", "Kowalski", "Haddad", "Novak", "Pereira", "Sato", "Duarte", "Ferreira", "Nakamura", "Whitfield", "Rahman", "Ivanova", "Mendes"}
	teams   = []string{"Platform", "Payments", "Mobile", "Data", "Design", "Sales", "Finance", "People", "Security", "Support", "Growth", "Infrastructure"}
	offices = []string{"Lisbon", "Leeds", "Montreal"}
	birds   = []string{"Heron", "Kite", "Osprey", "Wren", "Falcon", "Lark", "Puffin", "Swift", "Tern", "Plover", "Egret", "Curlew", "Merlin", "Avocet", "Dunlin", "Gannet", "Shrike", "Bittern", "Linnet", "Siskin"}
	vendors = []string{"Tallis Print", "Marrow Catering", "Ashgrove Legal", "Bluefin Logistics", "Quill Office Supply",
		"Northgate Security", "Pebble Telecom", "Corvid Cloud", "Fernhill Furniture", "Lumen Translation", "Saltmarsh Recruiting",
		"Hollis Travel", "Brightline Electrical", "Cobalt Analytics", "Tidewater Cleaning", "Granite Insurance"}
)

func person() string { return pick(first) + " " + pick(last) }
