package main

// policy is a hand-written document with its questions: each question
// {question, contains} is asked in a person's words, not the document's.
type policy struct {
	name, kind, title string
	words             int
	sections          []sec
	qa                [][2]string
}

func s(h string, paras ...string) sec { return sec{heading: h, paras: paras} }

func policies() {
	for _, p := range policyDocs {
		add(doc{name: p.name, kind: p.kind, title: p.title, sections: p.sections}, p.words)
		for _, q := range p.qa {
			ask(p.name, q[0], q[1])
		}
	}
}

var policyDocs = []policy{
	{name: "travel-policy.html", kind: "html", title: "Travel policy", words: 4200, sections: []sec{
		s("Flights", "Book economy class for every flight shorter than six hours. Premium economy is allowed for flights of six hours or more; business class needs the approval of a member of the leadership team.",
			"Flights are booked through Hollis Travel, the company's travel desk, at least fourteen days before departure when the trip is known that early."),
		s("Hotels", "The nightly hotel limit is EUR 180 in Lisbon, GBP 160 in Leeds and London, and CAD 240 in Montreal. In other cities the limit is EUR 150 a night.",
			"Book a hotel within walking distance or a short public transport ride of the office or the customer you visit."),
		s("Per diem", "The daily allowance for meals abroad is EUR 55; it is EUR 35 on a trip within your home country. Alcohol is never reimbursed."),
		s("Trains and taxis", "Take the train when the journey is under four hours. Taxis are fine late at night, with heavy luggage, or when public transport would take more than twice as long."),
		s("Travel insurance", "Every business trip is covered by the company's travel insurance with Granite Insurance; the policy number and the emergency line are on the back of your badge."),
	}, qa: [][2]string{
		{"Am I allowed to fly business class to Montreal?", "business class needs the approval of a member of the leadership team"},
		{"What's the most I can spend on a hotel night in Montreal?", "CAD 240 in Montreal"},
		{"How much can I claim for food each day when I'm travelling abroad?", "daily allowance for meals abroad is EUR 55"},
		{"Should I take the train or fly for a three hour journey?", "Take the train when the journey is under four hours"},
		{"Who books our flights?", "booked through Hollis Travel"},
	}},
	{name: "expense-policy.md", kind: "md", title: "Expense policy", words: 3600, sections: []sec{
		s("Claiming", "Submit every expense claim in the people system within 30 days of the expense, with a photo of the receipt. Claims older than 90 days are not paid."),
		s("Approval", "Your manager approves claims up to EUR 1,000. Claims above EUR 1,000 also need the approval of the finance director, Rosa Duarte."),
		s("Reimbursement", "Approved claims are paid with the next salary, on the 25th of the month."),
		s("Meals with customers", "A meal with a customer is reimbursed up to EUR 70 per person, including tip; write the names of the guests on the claim."),
		s("Home office", "Each person may claim a home office allowance of EUR 500 once every three years, for a desk, a chair or a monitor."),
	}, qa: [][2]string{
		{"How long do I have to file a receipt after I pay for something?", "within 30 days of the expense"},
		{"Who has to sign off on a big expense over a thousand euros?", "finance director, Rosa Duarte"},
		{"When do I get my money back for expenses?", "paid with the next salary, on the 25th of the month"},
		{"What's the limit for taking a client to dinner?", "up to EUR 70 per person"},
		{"Can I buy a monitor for working from home and get reimbursed?", "home office allowance of EUR 500 once every three years"},
	}},
	{name: "information-security-policy.docx", kind: "docx", title: "Information security policy", words: 5200, sections: []sec{
		s("Passwords", "Passwords are at least 14 characters long and are kept in the company password manager. Never reuse a company password elsewhere."),
		s("Two-factor authentication", "Multi-factor authentication is required for email, the code host, the cloud console and the people system. Use a hardware key or the authenticator app, never SMS."),
		s("Laptops", "Every laptop has full-disk encryption turned on and locks after 5 minutes without use. A lost or stolen laptop is reported to the security team within one hour on security@brightwater.example."),
		s("Data classification", "Customer data is confidential. It is never copied to personal devices, personal cloud storage or chat tools outside the company workspace."),
		s("Access reviews", "Managers review their team's access to production systems every quarter, and access is removed within one working day of someone leaving."),
	}, qa: [][2]string{
		{"How long does a password need to be?", "at least 14 characters long"},
		{"I lost my laptop on the train, what do I do?", "reported to the security team within one hour"},
		{"Can I use text messages for two-step login codes?", "never SMS"},
		{"How quickly is a leaver's access taken away?", "removed within one working day of someone leaving"},
	}},
	{name: "remote-work-policy.md", kind: "md", title: "Remote and hybrid work", words: 2600, sections: []sec{
		s("Office days", "Teams agree on two anchor days a week in the office; the rest of the week people work where they work best."),
		s("Working from abroad", "You may work from another country for up to 30 days a year, after telling your manager and the people team; longer stays need a tax check first."),
		s("Core hours", "Core hours are 10:00 to 15:00 in your office's time zone, when meetings may be booked."),
		s("Internet allowance", "People who work from home at least three days a week receive an internet allowance of EUR 30 a month."),
	}, qa: [][2]string{
		{"Can I work from Brazil for a couple of weeks?", "work from another country for up to 30 days a year"},
		{"How many days a week should I be in the office?", "two anchor days a week in the office"},
		{"Do we get money for home internet?", "internet allowance of EUR 30 a month"},
		{"When can people schedule meetings with me?", "Core hours are 10:00 to 15:00"},
	}},
	{name: "leave-policy.html", kind: "html", title: "Holidays and leave", words: 3900, sections: []sec{
		s("Annual leave", "Everyone has 27 days of paid holiday a year plus the public holidays of their office's country."),
		s("Carry-over", "Up to five unused days carry over to the next year; they must be taken by 31 March or they lapse."),
		s("Parental leave", "Parents receive 20 weeks of fully paid parental leave, to be taken within the child's first two years."),
		s("Sick leave", "Tell your manager on the first morning you are ill. From the fourth day of illness a doctor's note is needed."),
		s("Sabbatical", "After five years at Brightwater Labs you may take a paid sabbatical of four weeks."),
	}, qa: [][2]string{
		{"How many vacation days do I get?", "27 days of paid holiday a year"},
		{"What happens to holiday I didn't use last year?", "Up to five unused days carry over"},
		{"How long is paid leave for new parents?", "20 weeks of fully paid parental leave"},
		{"When do I need a note from the doctor?", "From the fourth day of illness"},
		{"Is there a sabbatical for long-serving staff?", "paid sabbatical of four weeks"},
	}},
	{name: "procurement-policy.pdf", kind: "pdf", title: "Procurement policy", words: 3000, sections: []sec{
		s("Quotes", "Any purchase above EUR 10,000 needs three written quotes from different suppliers, kept with the purchase order."),
		s("Purchase orders", "A purchase order is raised in the finance system before anything is ordered; invoices without a purchase order number are sent back to the supplier."),
		s("New suppliers", "A new supplier is checked by finance (bank details, company registration) and, if it will hold personal data, by the security team."),
		s("Software", "Software subscriptions are bought by the IT team only, so that licences are tracked and cancelled when no longer used."),
	}, qa: [][2]string{
		{"Do I need to compare prices from several vendors for a 15k purchase?", "three written quotes"},
		{"What happens to a supplier bill that has no PO number?", "sent back to the supplier"},
		{"Can I sign up for a SaaS tool on my own card?", "bought by the IT team only"},
	}},
	{name: "data-retention-policy.docx", kind: "docx", title: "Data retention schedule", words: 2800, sections: []sec{
		s("Financial records", "Invoices, receipts and payroll records are kept for 7 years after the end of the financial year."),
		s("Application logs", "Application logs are kept for 90 days; security audit logs for 2 years."),
		s("Candidate data", "The data of job candidates who were not hired is deleted 6 months after the hiring decision unless they agree to stay in the talent pool."),
		s("Customer accounts", "When a customer closes an account, its data is deleted within 30 days, backups within 60 days."),
	}, qa: [][2]string{
		{"How long do we keep old invoices?", "kept for 7 years"},
		{"How long are server logs stored?", "Application logs are kept for 90 days"},
		{"When do we delete CVs of rejected applicants?", "deleted 6 months after the hiring decision"},
		{"If a customer leaves, how fast is their data erased?", "deleted within 30 days, backups within 60 days"},
	}},
	{name: "on-call-policy.md", kind: "md", title: "On-call policy", words: 2400, sections: []sec{
		s("Rota", "Engineers join the on-call rota after three months. A shift is one week, Monday 10:00 to Monday 10:00, with a primary and a secondary."),
		s("Pay", "On-call is paid at EUR 250 per week of shifts, plus time off in lieu for every hour worked outside working hours."),
		s("Response", "The primary acknowledges a page within 15 minutes; after that the page goes to the secondary."),
		s("Handover", "The outgoing primary writes a handover note with open incidents and noisy alerts before the shift ends."),
	}, qa: [][2]string{
		{"How much extra do I get for being on call?", "EUR 250 per week"},
		{"How fast do I have to respond to a page?", "acknowledges a page within 15 minutes"},
		{"When can a new engineer start doing on-call?", "join the on-call rota after three months"},
	}},
	{name: "code-of-conduct.html", kind: "html", title: "Code of conduct", words: 3000, sections: []sec{
		s("Gifts", "You may accept gifts or hospitality worth up to EUR 50 from a supplier or customer; anything more is declined politely or declared to the legal team."),
		s("Conflicts of interest", "Declare any side business, investment or family relationship that touches Brightwater Labs' work to your manager and the legal team."),
		s("Speaking up", "Concerns can be raised anonymously through the ethics line run by an outside firm; nobody is penalised for raising a concern in good faith."),
	}, qa: [][2]string{
		{"A supplier sent me a bottle of wine worth 80 euros, can I keep it?", "worth up to EUR 50"},
		{"How can I report something wrong without giving my name?", "raised anonymously through the ethics line"},
	}},
	{name: "equipment-policy.txt", kind: "txt", title: "Equipment and laptops", words: 2000, sections: []sec{
		s("Laptops", "New joiners choose a 14-inch MacBook Pro or a ThinkPad X1 Carbon. Laptops are replaced every 36 months."),
		s("Peripherals", "Each person may order one external monitor, a keyboard, a mouse and a headset through the IT portal."),
		s("Leaving", "Equipment is returned on the last working day; Bluefin Logistics collects it from people who work remotely."),
	}, qa: [][2]string{
		{"How often do we get a new laptop?", "replaced every 36 months"},
		{"Which laptop models can I pick?", "14-inch MacBook Pro or a ThinkPad X1 Carbon"},
		{"I'm leaving and work remotely, how do I give back my laptop?", "Bluefin Logistics collects it"},
	}},
	{name: "learning-budget.md", kind: "md", title: "Learning and conferences", words: 1800, sections: []sec{
		s("Budget", "Every person has a learning budget of EUR 1,200 a year for courses, books and conferences."),
		s("Conferences", "Speaking at a conference does not count against the budget: the company pays travel and tickets for speakers."),
		s("Time", "Everyone may spend up to five working days a year on learning, booked as leave of the type learning."),
	}, qa: [][2]string{
		{"How much can I spend on training courses each year?", "learning budget of EUR 1,200 a year"},
		{"Does giving a talk at a conference use up my learning money?", "does not count against the budget"},
	}},
	{name: "employee-handbook.pdf", kind: "pdf", title: "Employee handbook", words: 6000, sections: []sec{
		s("Pay day", "Salaries are paid on the 25th of each month; when the 25th falls on a weekend, on the Friday before."),
		s("Probation", "The probation period is six months, with a review meeting after three months."),
		s("Pension", "The company pays 5 percent of salary into the pension plan and matches personal contributions up to a further 3 percent."),
		s("Health insurance", "Private health insurance covers employees and their children from the first day of employment."),
		s("Offices", "Brightwater Labs has offices in Lisbon (headquarters), Leeds and Montreal."),
	}, qa: [][2]string{
		{"How long is the trial period when you join?", "probation period is six months"},
		{"How much does the company put in my pension?", "pays 5 percent of salary into the pension plan"},
		{"Are my kids covered by the health insurance?", "covers employees and their children"},
		{"Where is the head office?", "Lisbon (headquarters)"},
	}},
}
