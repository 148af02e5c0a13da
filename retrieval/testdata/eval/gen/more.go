package main

import (
	"fmt"
	"strings"
)

func specs() {
	for i := range 20 {
		p := birds[i]
		sku := fmt.Sprintf("%s-%d-EU", strings.ToUpper(p[:2]), 100+i*10)
		seats := []int{25, 50, 100, 250, 500}[i%5]
		storage := []int{10, 50, 100, 500}[i%4]
		price := 900 + r.IntN(4000)
		pm := person()
		release := date(1+(i*5)%12, 1+(i*3)%28)
		sections := []sec{
			s("Overview", fmt.Sprintf("%s is the Brightwater Labs product for %s. Product manager: %s. Planned general availability: %s.",
				p, pick([]string{"team scheduling", "expense tracking", "document approval", "customer feedback", "asset tracking", "shift planning"}), pm, release)),
			s("Plans and limits", fmt.Sprintf("The team plan allows up to %d seats and %d GB of storage per workspace.", seats, storage),
				fmt.Sprintf("SKU %s is the team plan in the EU, priced at %s per seat per month.", sku, eur(price))),
			s("Requirements", "The web app supports the last two versions of Chrome, Firefox, Safari and Edge. The mobile app needs iOS 16 or Android 12."),
			s("Integrations", fmt.Sprintf("%s connects to the calendar, the chat tool and the single sign-on provider.", p)),
		}
		kind := []string{"md", "docx", "pdf", "md", "pdf"}[i%5]
		name := fmt.Sprintf("spec-%s.%s", strings.ToLower(p), kind)
		add(doc{name: name, kind: kind, title: p + " product specification", sections: sections}, 800+r.IntN(1700))
		switch i % 3 {
		case 0:
			ask(name, fmt.Sprintf("How many users can a team have on %s?", p), fmt.Sprintf("up to %d seats", seats))
		case 1:
			find(name, "What is SKU "+sku+"?", sku, "SKU "+sku)
		case 2:
			ask(name, fmt.Sprintf("When will %s be generally available?", p), "general availability: "+release)
		}
	}
}

func onboarding() {
	for i := range 10 {
		team := teams[i]
		buddy, lead := person(), person()
		tool := []string{"Figma", "Looker", "Terraform", "Xcode", "Salesforce", "NetSuite", "Workday", "Datadog", "Zendesk", "Amplitude"}[i]
		sections := []sec{
			s("Your first day", fmt.Sprintf("Your onboarding buddy in the %s team is %s, and your team lead is %s. On the first morning the help desk hands over your laptop.", team, buddy, lead)),
			s("Accounts", fmt.Sprintf("Besides email and chat, the %s team uses %s; ask your buddy to request access on your first day.", team, tool)),
			s("First week", "Day two is the company introduction with the people team. By Friday you have shipped or shared something small."),
			s("First month", "By the end of the first month you have met every team you work with and agreed your goals for the probation review."),
		}
		kind := "md"
		if i%2 == 1 {
			kind = "html"
		}
		name := fmt.Sprintf("onboarding-%s.%s", strings.ToLower(team), kind)
		add(doc{name: name, kind: kind, title: "Onboarding guide: " + team, sections: sections}, 800+r.IntN(1200))
		if i%2 == 0 {
			ask(name, fmt.Sprintf("Who will help me settle in when I join %s?", team), "onboarding buddy in the "+team+" team is "+buddy)
		} else {
			ask(name, fmt.Sprintf("Which tool does the %s team use that I need access to?", team), "team uses "+tool)
		}
	}
}

var faqItems = []struct{ topic, q, a, ask, contains string }{
	{"IT", "How do I connect to the VPN?", "Install the VPN client from the IT portal and sign in with your company account; the gateway is vpn.brightwater.example.", "What's the address of the VPN gateway?", "vpn.brightwater.example"},
	{"IT", "What is the guest Wi-Fi?", "The guest network is BW-Guest; its password changes every Monday and is shown on the screen at reception.", "How do visitors get online in the office?", "guest network is BW-Guest"},
	{"Payroll", "When is payday?", "Salaries arrive on the 25th; payslips are in the people system two days earlier.", "Where can I find my payslip?", "payslips are in the people system"},
	{"Payroll", "How do I change my bank account?", "Change it in the people system before the 15th to have it used for that month's salary.", "What's the deadline to update my bank details for this month's pay?", "before the 15th"},
	{"Office", "When is the Lisbon office open?", "The Lisbon office is open from 8:00 to 20:00 on working days; after hours your badge opens the side door.", "What time does the Lisbon office close?", "open from 8:00 to 20:00"},
	{"Office", "Can I bring my dog to the office?", "Dogs are welcome in the Leeds office on Fridays; the other offices do not allow pets.", "Is it ok to bring a dog to work?", "Dogs are welcome in the Leeds office on Fridays"},
	{"Benefits", "Do we have a gym benefit?", "The company pays up to EUR 40 a month toward a gym or sports club membership.", "Will the company pay for my gym?", "up to EUR 40 a month toward a gym"},
	{"Benefits", "Is there a bike scheme?", "Yes: the cycle-to-work scheme spreads the cost of a bike over 12 months of salary, before tax.", "Can I get a bicycle through work?", "cycle-to-work scheme"},
	{"Security", "Who do I tell about a phishing email?", "Forward it as an attachment to phishing@brightwater.example and delete it.", "I got a suspicious email, where should I forward it?", "phishing@brightwater.example"},
	{"Support", "What are support's hours?", "Customer support answers from 07:00 to 22:00 UTC on working days and 09:00 to 17:00 UTC on weekends.", "Is customer support open at the weekend?", "09:00 to 17:00 UTC on weekends"},
}

func faqs() {
	for i := range 10 {
		f := faqItems[i]
		var secs []sec
		secs = append(secs, s(f.q, f.a))
		for j := range 4 { // other answers of the same topic, as distractors
			o := faqItems[(i+j+1)%len(faqItems)]
			if o.ask != f.ask {
				secs = append(secs, s(o.q+" (see the "+strings.ToLower(o.topic)+" pages)", "Short answer: ask the "+strings.ToLower(o.topic)+" team or read their page on the intranet."))
			}
		}
		name := fmt.Sprintf("faq-%s-%d.html", strings.ToLower(f.topic), i+1)
		add(doc{name: name, kind: "html", title: f.topic + " questions and answers", sections: secs}, 600+r.IntN(900))
		ask(name, f.ask, f.contains)
	}
}

func tables() {
	// asset register: five files of 60 rows
	for f := range 5 {
		var b strings.Builder
		b.WriteString("asset_tag,type,model,assigned_to,office,purchased,warranty_until\n")
		var askTag, askWho string
		for row := range 60 {
			tag := fmt.Sprintf("AST-%04d", 100+f*60+row)
			who := person()
			model := pick([]string{"MacBook Pro 14", "ThinkPad X1 Carbon", "Dell U2723QE monitor", "iPhone 15", "Pixel 8", "Jabra Evolve2 headset"})
			fmt.Fprintf(&b, "%s,%s,%s,%s,%s,2023-%02d-%02d,2026-%02d-%02d\n", tag, strings.Fields(model)[0], model, who, offices[row%3], 1+row%12, 1+row%28, 1+row%12, 1+row%28)
			if row == 17+f*7 {
				askTag, askWho = tag, who
			}
		}
		name := fmt.Sprintf("asset-register-%d.csv", f+1)
		add(doc{name: name, kind: "csv", raw: b.String()}, 0)
		find(name, "Who has laptop "+askTag+"?", askTag, askTag+","+"")
		qs[len(qs)-1].Expect[0].Contains = askWho
	}
	// price lists per year and region
	for f, region := range []string{"EU", "UK", "CA", "US"} {
		var b strings.Builder
		b.WriteString("sku,product,plan,currency,monthly_price_per_seat,annual_discount_percent\n")
		for i, p := range birds {
			for j, plan := range []string{"starter", "team", "business"} {
				fmt.Fprintf(&b, "%s-%d-%s,%s,%s,%s,%d.00,%d\n", strings.ToUpper(p[:2]), 100+i*10+j, region, p, plan,
					map[string]string{"EU": "EUR", "UK": "GBP", "CA": "CAD", "US": "USD"}[region], 4+(i+j*3+f)%30, 10+5*((i+j)%3))
			}
		}
		name := fmt.Sprintf("price-list-%s.csv", strings.ToLower(region))
		add(doc{name: name, kind: "csv", raw: b.String()}, 0)
		if f < 2 {
			p := birds[5+f]
			find(name, fmt.Sprintf("What does the %s business plan cost in %s?", p, region), fmt.Sprintf("%s-%d-%s", strings.ToUpper(p[:2]), 100+(5+f)*10+2, region),
				fmt.Sprintf("%s,business", p))
		}
	}
	// headcount, training budget, meeting rooms, holidays, vendors
	var hc strings.Builder
	hc.WriteString("office,team,headcount_2023,headcount_2024,open_roles\n")
	for i, o := range offices {
		for j, t := range teams {
			fmt.Fprintf(&hc, "%s,%s,%d,%d,%d\n", o, t, 2+(i*7+j*3)%19, 3+(i*5+j*7)%23, (i+j)%4)
		}
	}
	add(doc{name: "headcount-2024.csv", kind: "csv", raw: hc.String()}, 0)
	var rooms strings.Builder
	rooms.WriteString("office,room,floor,seats,video\n")
	for i, o := range offices {
		for j, b := range birds[:8] {
			fmt.Fprintf(&rooms, "%s,%s room,%d,%d,%v\n", o, b, 1+j%3, 4+(i+j*2)%16, j%2 == 0)
		}
	}
	add(doc{name: "meeting-rooms.csv", kind: "csv", raw: rooms.String()}, 0)
	var vend strings.Builder
	vend.WriteString("vendor,category,account_manager,email,phone,since\n")
	for i, v := range vendors {
		who := person()
		fmt.Fprintf(&vend, "%s,%s,%s,%s@%s.example,+351 21 %03d %04d,%d\n", v, pick([]string{"services", "goods", "software", "facilities"}),
			who, strings.ToLower(strings.Fields(who)[0]), strings.ToLower(strings.ReplaceAll(v, " ", "")), 100+i*37, 1000+i*411, 2015+i%9)
		if i == 6 {
			find("vendor-contacts.csv", "Who is our account manager at "+v+"?", v, v+",")
			qs[len(qs)-1].Expect[0].Contains = who
		}
	}
	add(doc{name: "vendor-contacts.csv", kind: "csv", raw: vend.String()}, 0)
	var hol strings.Builder
	hol.WriteString("office,date,holiday\n")
	for _, h := range []string{"Lisbon,2024-01-01,New Year's Day", "Lisbon,2024-04-25,Freedom Day", "Lisbon,2024-06-13,Saint Anthony's Day",
		"Lisbon,2024-12-08,Immaculate Conception", "Leeds,2024-05-27,Spring bank holiday", "Leeds,2024-08-26,Summer bank holiday",
		"Leeds,2024-12-26,Boxing Day", "Montreal,2024-06-24,Saint-Jean-Baptiste Day", "Montreal,2024-07-01,Canada Day",
		"Montreal,2024-10-14,Thanksgiving"} {
		hol.WriteString(h + "\n")
	}
	add(doc{name: "public-holidays-2024.csv", kind: "csv", raw: hol.String()}, 0)
	find("public-holidays-2024.csv", "Is Saint Anthony's Day a holiday in Lisbon?", "Saint Anthony's Day", "2024-06-13")
	var tb strings.Builder
	tb.WriteString("team,learning_budget_eur,spent_q1,spent_q2,conference\n")
	for i, t := range teams {
		fmt.Fprintf(&tb, "%s,%d,%d,%d,%s\n", t, 8000+i*1500, 1000+i*230, 1500+i*170, pick([]string{"GopherCon EU", "Config", "SaaStr", "KubeCon", "Money20/20", "UXDX"}))
	}
	add(doc{name: "training-budget-2024.csv", kind: "csv", raw: tb.String()}, 0)
}

func records() {
	// the on-call rota, the service catalogue, feature flags, office details
	var rota []map[string]any
	for w := range 26 {
		rota = append(rota, map[string]any{"week": w + 1, "starts": fmt.Sprintf("2024-%02d-%02d", 1+w/4, 1+(w%4)*7), "primary": person(), "secondary": person()})
	}
	add(doc{name: "on-call-rota-h1.json", kind: "json", raw: jsonText(map[string]any{"team": "Platform", "rota": rota})}, 0)
	find("on-call-rota-h1.json", "Who is primary on call in week 12?", `"week": 12`, fmt.Sprint(rota[11]["primary"]))
	qs[len(qs)-1].Query = `"week": 12`
	var catalog []map[string]any
	for i, svc := range services {
		catalog = append(catalog, map[string]any{"service": svc, "owner_team": teams[i%len(teams)], "slo_availability": []string{"99.9%", "99.95%", "99.5%"}[i%3],
			"runbook": fmt.Sprintf("RB-%03d", 40+i*3), "tier": 1 + i%3})
	}
	add(doc{name: "service-catalogue.json", kind: "json", raw: jsonText(map[string]any{"services": catalog})}, 0)
	find("service-catalogue.json", "Which service has runbook RB-049?", "RB-049", "RB-049")
	for i := range 8 {
		var flags []map[string]any
		for j := range 12 {
			flags = append(flags, map[string]any{"flag": fmt.Sprintf("%s_%s", strings.ToLower(birds[(i+j)%len(birds)]), pick([]string{"new_editor", "bulk_export", "dark_mode", "sso_only", "fast_sync", "beta_reports"})),
				"enabled": (i+j)%3 == 0, "rollout_percent": (i*7 + j*13) % 101, "owner": person(), "description": paragraph()})
		}
		name := fmt.Sprintf("feature-flags-%s.json", []string{"web", "mobile", "api", "admin", "billing", "search", "sync", "reports"}[i])
		add(doc{name: name, kind: "json", raw: jsonText(map[string]any{"environment": "production", "flags": flags})}, 0)
		if i < 2 {
			f := flags[4]
			find(name, "Who owns the flag "+f["flag"].(string)+"?", f["flag"].(string), fmt.Sprint(f["owner"]))
		}
	}
}

func trips() {
	for i := range 12 {
		who := person()
		city := []string{"Berlin", "Madrid", "Toronto", "Dublin", "Amsterdam", "Boston", "Porto", "Manchester", "Paris", "Vienna", "Copenhagen", "Milan"}[i]
		customer := []string{"Harbor Foods", "Kestrel Bank", "Orchard Health", "Summit Retail", "Vale Energy", "Northwind Media"}[i%6]
		cost := 60000 + r.IntN(300000)
		sections := []sec{
			s("Purpose", fmt.Sprintf("%s visited %s in %s to discuss the renewal of their %s subscription.", who, customer, city, birds[i])),
			s("Outcome", fmt.Sprintf("%s agreed to renew for two years and asked for a pilot of %s in the spring.", customer, birds[i+1])),
			s("Costs", fmt.Sprintf("The trip cost %s in total: flights, two hotel nights and meals, within the travel policy.", eur(cost))),
		}
		kind := []string{"pdf", "txt", "pdf"}[i%3]
		name := fmt.Sprintf("trip-report-%s-%s.%s", strings.ToLower(city), strings.ToLower(strings.ReplaceAll(customer, " ", "-")), kind)
		add(doc{name: name, kind: kind, title: fmt.Sprintf("Trip report: %s, %s", customer, city), sections: sections}, 400+r.IntN(600))
		if i%2 == 0 {
			ask(name, fmt.Sprintf("What did %s decide after our visit in %s?", customer, city), "agreed to renew for two years")
		} else {
			ask(name, fmt.Sprintf("How much did the %s trip to see %s cost?", city, customer), "trip cost "+eur(cost))
		}
	}
}

func releases() {
	for i := range 10 {
		p := birds[(i*2+1)%len(birds)]
		v := fmt.Sprintf("%d.%d.0", 2+i/4, i%4)
		fix := pick([]string{"exports of more than 10,000 rows failed", "the calendar showed the wrong time zone", "search missed accented words",
			"notifications arrived twice", "the mobile app logged people out after an update"})
		sections := []sec{
			s("New", fmt.Sprintf("%s %s adds bulk editing, a new onboarding tour and keyboard shortcuts for the list views.", p, v)),
			s("Fixed", fmt.Sprintf("Fixed: %s.", fix)),
			s("Known issues", "Printing a very long report may cut the last page; a fix is planned for the next release."),
		}
		name := fmt.Sprintf("release-notes-%s-%s.md", strings.ToLower(p), v)
		add(doc{name: name, kind: "md", title: fmt.Sprintf("%s %s release notes", p, v), sections: sections}, 400+r.IntN(600))
		if i%2 == 0 {
			ask(name, fmt.Sprintf("Which bug was fixed in %s version %s?", p, v), "Fixed: "+fix)
		}
	}
}
