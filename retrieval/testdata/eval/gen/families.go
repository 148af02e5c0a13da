package main

import (
	"fmt"
	"strings"
)

var items = map[string][]string{
	"Tallis Print":          {"printed brochures", "business cards", "event banners"},
	"Marrow Catering":       {"lunch for the all-hands meeting", "coffee service", "offsite dinner"},
	"Ashgrove Legal":        {"review of the supplier agreement", "trademark filing", "employment advice"},
	"Bluefin Logistics":     {"shipping of laptops to new joiners", "courier service", "storage of event equipment"},
	"Quill Office Supply":   {"notebooks and pens", "printer paper", "whiteboard markers"},
	"Northgate Security":    {"penetration test", "badge readers", "security awareness training"},
	"Pebble Telecom":        {"mobile phone plans", "office internet line", "conference call numbers"},
	"Corvid Cloud":          {"cloud hosting", "object storage", "managed database"},
	"Fernhill Furniture":    {"standing desks", "office chairs", "meeting room tables"},
	"Lumen Translation":     {"translation of the help centre", "subtitles for training videos", "contract translation"},
	"Saltmarsh Recruiting":  {"placement fee for a senior engineer", "job advert package", "assessment centre"},
	"Hollis Travel":         {"flights for the sales conference", "hotel bookings", "rail passes"},
	"Brightline Electrical": {"rewiring of the server room", "emergency lighting check", "new sockets in the kitchen"},
	"Cobalt Analytics":      {"analytics licence", "dashboard setup", "data warehouse consulting"},
	"Tidewater Cleaning":    {"office cleaning", "window cleaning", "carpet cleaning"},
	"Granite Insurance":     {"office insurance premium", "travel insurance", "cyber insurance premium"},
	"Meridian Payroll":      {"payroll processing"},
	"Oakfield Hardware":     {"server racks"},
	"Redwing Couriers":      {"same-day courier"},
	"Silverleaf Events":     {"conference booth"},
}

func invoices() {
	for i := range 32 {
		v := vendors[i%len(vendors)]
		id := fmt.Sprintf("INV-2024-%04d", 17+i*13)
		po := fmt.Sprintf("PO-%d", 7100+i*29)
		m, d := 1+i%11, 3+(i*5)%25
		item := items[v][i/len(vendors)%3]
		office := offices[i%3]
		qty := 2 + r.IntN(40)
		unit := 2500 + r.IntN(90000)
		total := qty * unit
		due := date(m+1, d)
		approver := person()
		intro := fmt.Sprintf("Invoice %s from %s to Brightwater Labs, %s office, dated %s, for %s (%d units at %s each). "+
			"Total due: %s by %s. Purchase order %s. Approved by %s.", id, v, office, date(m, d), item, qty, eur(unit), eur(total), due, po, approver)
		terms := "Payment terms: thirty days net from the invoice date. Late payment carries interest at the statutory rate. " +
			"Please quote the invoice number on the transfer. Disputes about an invoice must reach the supplier within fourteen days."
		name := fmt.Sprintf("invoice-%s-%s", strings.ToLower(strings.ReplaceAll(v, " ", "-")), id[len(id)-4:])
		if i%2 == 0 {
			var lines []map[string]any
			lines = append(lines, map[string]any{"description": item, "quantity": qty, "unit_price": eur(unit), "amount": eur(total)})
			notes := []string{intro, terms}
			for range 3 {
				notes = append(notes, paragraph())
			}
			d := doc{name: name + ".json", kind: "json", raw: jsonText(map[string]any{
				"invoice": id, "vendor": v, "customer": "Brightwater Labs", "office": office, "date": date(m, d), "due": due,
				"purchase_order": po, "approved_by": approver, "lines": lines, "total": eur(total), "notes": notes,
			})}
			add(d, 0)
		} else {
			add(doc{name: name + ".txt", kind: "txt", title: "Invoice " + id, sections: []sec{
				{paras: []string{intro}},
				{heading: "Lines", paras: []string{fmt.Sprintf("1. %s: %d x %s = %s", item, qty, eur(unit), eur(total))}},
				{heading: "Terms", paras: []string{terms}},
			}}, 300+r.IntN(200))
		}
		file := docs[len(docs)-1].name
		switch i % 4 {
		case 0:
			find(file, "Find invoice "+id, id, "Total due: "+eur(total))
		case 1:
			ask(file, fmt.Sprintf("How much did %s charge us for %s for the %s office?", v, item, office), "Total due: "+eur(total))
		case 2:
			find(file, "Which invoice goes with purchase order "+po+"?", po, id)
		case 3:
			if i < 24 {
				ask(file, fmt.Sprintf("When is the %s invoice for %s due?", v, item), "by "+due)
			}
		}
	}
}

var decisions = []struct{ text, question string }{
	{"move the %s beta to %s", "When did the %s team agree the %s beta would start?"},
	{"freeze new features for %s until %s", "Until when are new features frozen for %s (decided by %s team)?"},
	{"hire two more engineers for %s before %s", "How many engineers will be hired for %s, according to the %s team?"},
	{"retire the old %s dashboard on %s", "When does the old %s dashboard go away, per the %s team?"},
	{"run a customer survey about %s before %s", "Is there a customer survey planned about %s by the %s team?"},
}

func meetings() {
	for i := range 50 {
		team := teams[i%len(teams)]
		prod := birds[(i*3)%len(birds)]
		m, d := 1+(i*7)%12, 2+(i*3)%26
		when := date(1+(m+1)%12, 1+(d+9)%28)
		dec := decisions[i%len(decisions)]
		decision := fmt.Sprintf(dec.text, prod, when)
		owner := person()
		// a team's meetings each give a different task, so "who does X for team T" has one answer
		task := []string{"draft the vendor shortlist", "update the pricing page", "write the migration guide",
			"book the offsite venue", "collect the survey answers", "prepare the budget review", "clean up the backlog"}[(i%len(teams)+i/len(teams))%7]
		attendees := []string{person(), person(), person(), owner}
		date := fmt.Sprintf("2024-%02d-%02d", m, d)
		sections := []sec{
			{heading: "Attendees", paras: []string{strings.Join(attendees, ", ") + "."}},
			{heading: "Agenda", paras: []string{fmt.Sprintf("Status of %s, hiring, the budget for the next quarter, and open incidents.", prod)}},
			{heading: "Decisions", paras: []string{fmt.Sprintf("Decision: %s. The %s team will tell the other teams in the weekly update.", decision, team)}},
			{heading: "Action items", paras: []string{fmt.Sprintf("%s to %s by %s.", owner, task, when),
				fmt.Sprintf("%s to share the notes with the %s office.", attendees[0], offices[i%3])}},
		}
		kind := "md"
		if i%5 == 4 {
			kind = "txt"
		}
		name := fmt.Sprintf("meeting-%s-%s.%s", strings.ToLower(team), date, kind)
		add(doc{name: name, kind: kind, title: fmt.Sprintf("%s team weekly sync, %s", team, date), sections: sections}, 400+r.IntN(900))
		switch i % 3 {
		case 0:
			ask(name, fmt.Sprintf(dec.question, prod, team), decision)
		case 1:
			ask(name, fmt.Sprintf("Who is supposed to %s for the %s team?", task, team), owner+" to "+task)
		}
	}
}

var causes = []struct{ cause, fix string }{
	{"an expired TLS certificate on the load balancer", "certificates are now renewed automatically thirty days before they expire"},
	{"a full disk on the primary database replica", "disk usage alerts now fire at 75 percent"},
	{"a configuration push that disabled the cache", "configuration changes now go through a staged rollout"},
	{"a DNS record deleted during a cleanup", "DNS changes now need a second reviewer"},
	{"a memory leak in the export worker", "the export worker is restarted when its memory passes 2 GB"},
	{"rate limiting by the payment provider", "payment calls are now retried with backoff and a separate quota"},
	{"clock skew between the token service hosts", "all hosts now sync their clocks every minute"},
	{"a queue backlog after a bulk import", "bulk imports now run in a separate queue"},
}

var services = []string{"billing API", "login service", "search service", "mobile sync", "file uploads", "notification service",
	"reporting dashboard", "public API", "checkout page", "webhooks"}

func incidents() {
	for i := range 28 {
		id := fmt.Sprintf("INC-2024-%03d", 11+i*4)
		svc := services[i%len(services)]
		c := causes[(i*3)%len(causes)]
		m, d := 1+i%12, 1+(i*11)%28
		minutes := 12 + r.IntN(230)
		affected := 40 + r.IntN(4000)
		lead := person()
		summary := fmt.Sprintf("Incident %s: the %s was unavailable for %d minutes on %s. About %d customers were affected. Incident lead: %s.",
			id, svc, minutes, date(m, d), affected, lead)
		sections := []sec{
			{heading: "Summary", paras: []string{summary}},
			{heading: "Timeline", paras: []string{fmt.Sprintf("The on-call engineer was paged at %02d:%02d UTC. Errors rose on the %s dashboard. The incident channel was opened and the status page updated.", 1+r.IntN(22), r.IntN(60), svc)}},
			{heading: "Root cause", paras: []string{fmt.Sprintf("The root cause was %s.", c.cause)}},
			{heading: "What we changed", paras: []string{fmt.Sprintf("Remediation: %s.", c.fix)}},
		}
		kind := []string{"md", "html", "md", "html", "pdf"}[i%5]
		name := fmt.Sprintf("incident-%s.%s", strings.ToLower(id), kind)
		add(doc{name: name, kind: kind, title: fmt.Sprintf("Incident report %s: %s outage", id, svc), sections: sections}, 500+r.IntN(1000))
		switch i % 4 {
		case 0:
			ask(name, fmt.Sprintf("Why did the %s go down in %s?", svc, months[m-1]), "root cause was "+c.cause)
		case 1:
			find(name, "What happened in "+id+"?", id, fmt.Sprintf("unavailable for %d minutes", minutes))
		case 2:
			ask(name, fmt.Sprintf("How many customers were hit by the %s outage in %s?", svc, months[m-1]), fmt.Sprintf("About %d customers", affected))
		}
	}
}

func contracts() {
	parties := append(vendors[:len(vendors):len(vendors)], "Meridian Payroll", "Oakfield Hardware", "Redwing Couriers", "Silverleaf Events")
	for i := range 20 {
		v := parties[i]
		id := fmt.Sprintf("CTR-2023-%03d", 101+i*7)
		term := []int{12, 24, 36}[i%3]
		notice := []int{30, 60, 90}[(i/3)%3]
		limit := (50 + r.IntN(450)) * 100000
		penalty := 1 + i%4
		start := date(1+i%12, 1+(i*7)%28)
		signer := person()
		law := []string{"Portugal", "England and Wales", "Quebec"}[i%3]
		sections := []sec{
			{heading: "Parties", paras: []string{fmt.Sprintf("This supplier agreement %s is made between Brightwater Labs and %s. It was signed for Brightwater Labs by %s.", id, v, signer)}},
			{heading: "Term", paras: []string{fmt.Sprintf("The agreement starts on %s and runs for %d months. It renews for one year at a time unless either party gives notice.", start, term)}},
			{heading: "Termination", paras: []string{fmt.Sprintf("Either party may end the agreement by written notice of %d days.", notice),
				"Either party may end it at once if the other commits a material breach and does not remedy it within thirty days."}},
			{heading: "Service levels and penalties", paras: []string{fmt.Sprintf("A late delivery costs %s %d percent of the order value per week of delay, up to twenty percent.", v, penalty)}},
			{heading: "Liability", paras: []string{fmt.Sprintf("Each party's total liability under %s is capped at %s.", id, eur(limit))}},
			{heading: "Pricing", paras: []string{"Item | Price | Unit", fmt.Sprintf("%s | %s | per order", items[v][0], eur(1000+r.IntN(50000)))}},
			{heading: "Governing law", paras: []string{fmt.Sprintf("This agreement is governed by the law of %s.", law)}},
		}
		kind := []string{"docx", "docx", "pdf", "md"}[i%4]
		if i >= 16 {
			kind = "docx"
		}
		name := fmt.Sprintf("contract-%s-%s.%s", strings.ToLower(strings.ReplaceAll(v, " ", "-")), strings.ToLower(id), kind)
		add(doc{name: name, kind: kind, title: fmt.Sprintf("Supplier agreement with %s (%s)", v, id), sections: sections}, 1500+r.IntN(2500))
		switch i % 4 {
		case 0:
			ask(name, fmt.Sprintf("How much notice do we have to give to cancel the %s contract?", v), fmt.Sprintf("written notice of %d days", notice))
		case 1:
			ask(name, fmt.Sprintf("What is the penalty if %s delivers late?", v), fmt.Sprintf("%d percent of the order value per week", penalty))
		case 2:
			find(name, "Pull up contract "+id, id, "This supplier agreement "+id)
		case 3:
			ask(name, fmt.Sprintf("What is the liability cap in our agreement with %s?", v), "capped at "+eur(limit))
		}
	}
}
