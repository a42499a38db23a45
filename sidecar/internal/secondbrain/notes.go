package secondbrain

// commit is one commit of the vault's history: the notes it writes
// (whole files, added or changed) at a date.
type commit struct {
	date    string // RFC 3339, as GIT_AUTHOR_DATE takes it
	message string
	files   map[string]string
}

// history is the vault, commit by commit, oldest first. A note's last
// commit is its age by git; frontmatter dates, where a note has them,
// agree with it or are older (a note edited without touching `updated:`).
var history = []commit{
	{"2024-03-10T19:30:00+01:00", "laptop notes", map[string]string{
		".obsidian/daily-notes.json": `{"folder":"Daily","format":"YYYY-MM-DD"}` + "\n",
		".gitignore":                 ".quire/\n.trash/\n",
		"Laptop setup 2024.md": `---
date: 2024-03-10
tags: [computer]
---
# Laptop setup 2024

My laptop is a ThinkPad X1 Carbon (gen 9) running Fedora 39.

## Backups

Backups run every night with Deja Dup to the NAS in the hall cupboard.

## Software

- Editor: VS Code
- Browser: Firefox
- Password manager: KeePassXC, the database synced with Syncthing
`,
	}},
	{"2025-02-14T10:00:00+01:00", "health and car", map[string]string{
		"Areas/Health/Dentist.md": `---
date: 2025-02-14
---
# Dentist

My dentist is Dr. Amara Okafor at the Riverside Dental Practice, 12 Mill Lane.
Check-ups are every six months; the hygienist appointment is booked separately.

Phone: 01632 960 415 (reception opens at 8:30).
`,
		"Areas/Car.md": `# Car

The car is a 2019 Skoda Octavia estate, registration KX19 ZTB.

## Insurance

The insurance is with Harbour Mutual, policy HM-4471-22. It renews on 14 March
every year; the renewal letter arrives about three weeks before.

## Service

Oil and filter every 15,000 km at the garage on Station Road.
`,
	}},
	{"2025-05-03T09:15:00+02:00", "bike and bread", map[string]string{
		"Areas/Bike maintenance.md": `# Bike maintenance

STALE: I have not looked at this page since the spring; the numbers still hold.

## Road bike

Tyre pressure for the road bike: 6.5 bar front and 7 bar rear (28 mm tyres).
Chain lube every 300 km, a new chain every 3,000 km.

## Commuter

The commuter has hub gears; the shop on Bridge Street services them once a year.
`,
		"Recipes/Sourdough.md": `---
date: 2025-05-03
tags: [baking]
---
# Sourdough

## Starter

Feed the starter once a day at a 1:1:1 ratio by weight: one part starter, one
part flour, one part water. Keep it in the fridge when not baking for a week.

## Loaf

500 g strong white flour, 350 g water, 100 g active starter, 10 g salt. Bulk
ferment 5 hours, shape, then a night in the fridge. Bake at 250 °C covered for
20 minutes and 20 more uncovered.
`,
	}},
	{"2025-09-21T17:40:00+02:00", "home network and boiler", map[string]string{
		"Areas/Home network.md": `---
updated: 2025-09-21
---
# Home network

The wifi network is called "Larkspur" (5 GHz: "Larkspur-5G"); the password is in
KeePassXC under Home / Wifi.

The router is a Fritz!Box 7590 at 192.168.178.1. The NAS is 192.168.178.20.
`,
		"Areas/Boiler.md": `# Boiler

The boiler is a Vaillant ecoTEC plus 832, fitted in 2018 in the utility room.
The annual service is due in October; the last engineer was from Northside Heating.

If the pressure drops below 1 bar, top it up with the filling loop under the
boiler to 1.5 bar.
`,
	}},
	{"2026-06-01T20:00:00+02:00", "garden shed plan", map[string]string{
		"Projects/Garden shed/Plan v1.md": `---
date: 2026-06-01
---
# Garden shed plan

Build a timber shed of 3 × 2 m at the end of the garden myself, on a gravel base.

- Budget: 800 EUR for timber and roofing felt
- Timber from the sawmill in Oakford
- Build over two weekends in July
`,
	}},
	{"2026-08-15T11:00:00+02:00", "garden shed: a kit instead", map[string]string{
		"Projects/Garden shed/Plan v1.md": `---
date: 2026-06-01
status: superseded
superseded_by: "[[Plan v2]]"
---
# Garden shed plan

Build a timber shed of 3 × 2 m at the end of the garden myself, on a gravel base.

- Budget: 800 EUR for timber and roofing felt
- Timber from the sawmill in Oakford
- Build over two weekends in July
`,
		"Projects/Garden shed/Plan v2.md": `---
date: 2026-08-15
---
# Garden shed plan, second version

July went by: instead of building from timber, buy a flat-pack wooden kit of
3 × 2 m and assemble it on a concrete slab.

- Budget: 1,200 EUR for the kit and the slab
- Kit from the garden centre on the ring road
- Assemble in September
`,
	}},
	{"2026-10-05T21:10:00+02:00", "new laptop", map[string]string{
		"Laptop setup.md": `---
updated: 2026-10-05
tags: [computer]
---
# Laptop setup

My laptop is now a Framework 13 (AMD) running Debian 13; the ThinkPad went to
my sister.

## Backups

Backups run every night with restic to the NAS, and once a week to an
external disk kept at the office.

## Software

- Editor: Neovim
- Browser: Firefox
- Password manager: KeePassXC, synced with Syncthing
`,
	}},
	{"2026-10-20T18:25:00+02:00", "garden shed: metal, fitted", map[string]string{
		"Projects/Garden shed/Plan v2.md": `---
date: 2026-08-15
status: superseded
superseded_by: "[[Plan v3]]"
---
# Garden shed plan, second version

July went by: instead of building from timber, buy a flat-pack wooden kit of
3 × 2 m and assemble it on a concrete slab.

- Budget: 1,200 EUR for the kit and the slab
- Kit from the garden centre on the ring road
- Assemble in September
`,
		"Projects/Garden shed/Plan v3.md": `---
date: 2026-10-20
status: current
---
# Garden shed plan, third version

A metal shed of 3 × 2.5 m, delivered and fitted by Greenway Sheds on a
concrete slab poured by the same firm.

- Budget: 1,650 EUR all in, a 300 EUR deposit paid on 20 October
- Fitting booked for 12 December
- The old compost bins move to the side passage first
`,
		"Projects/Newsletter.md": `# Newsletter

SUPERSEDED by [[Missing Note]]

A monthly newsletter for the allotment society: four short items, a photo, and
the work-party dates. Sent on the first Sunday of the month with Buttondown.
`,
	}},
	{"2026-11-02T19:00:00+01:00", "kitchen and reading", map[string]string{
		"Projects/Kitchen renovation.md": `---
date: 2026-11-02
---
# Kitchen renovation

The worktop is oak, 40 mm, ordered from Timberline on 2 November; delivery in
six weeks. The tiles are plain white 10 × 10 cm, 6 m² of them.

The electrician, Sam Reyes, moves two sockets before the fitting.
`,
		"Reading/Books 2026.md": `# Books 2026

- *The Overstory*, Richard Powers: finished in February
- *Braiding Sweetgrass*, Robin Wall Kimmerer: finished in May
- *Piranesi*, Susanna Clarke: reading now
`,
	}},
	{"2026-11-12T21:30:00+01:00", "daily", map[string]string{"Daily/2026-11-12.md": `# Thursday 12 November

- Finished the quarterly report and sent it to Priya.
- Ordered a new bike chain.
`}},
	{"2026-11-13T22:00:00+01:00", "daily", map[string]string{"Daily/2026-11-13.md": `# Friday 13 November

- The boiler made a knocking noise in the morning; the pressure read 0.8 bar.
  Topped it up to 1.5 bar and it went quiet.
- Pizza with the neighbours.
`}},
	{"2026-11-17T21:45:00+01:00", "daily", map[string]string{"Daily/2026-11-17.md": `# Tuesday 17 November

- Lunch with Tomás at the Lebanese place near the station; he is moving to Lisbon
  in the spring.
- Booked the car for its service.
`}},
	{"2026-11-19T22:10:00+01:00", "daily", map[string]string{"Daily/2026-11-19.md": `# Thursday 19 November

- Planning meeting for the allotment society's winter work party.
- Baked a loaf; the starter was sluggish after a week in the fridge.
`}},
	{"2026-11-23T21:20:00+01:00", "daily", map[string]string{"Daily/2026-11-23.md": `# Monday 23 November

- The boiler lost pressure again overnight, down to 0.5 bar, and the heating
  was off in the morning. Called Northside Heating: an engineer comes Wednesday.
- Dentist reminder for January.
`}},
	{"2026-11-25T20:50:00+01:00", "daily", map[string]string{"Daily/2026-11-25.md": `# Wednesday 25 November

- The boiler engineer from Northside Heating replaced the expansion vessel
  (it had lost its charge): 240 EUR. Pressure holds at 1.4 bar.
- Started *Piranesi*.
`}},
	{"2026-11-27T22:30:00+01:00", "daily", map[string]string{"Daily/2026-11-27.md": `# Friday 27 November

- Lunch with Priya and Jonas at the noodle bar; Jonas starts at the new job in
  January.
- Put the winter tyres on the car.
`}},
	{"2026-11-30T18:00:00+01:00", "home and projects maps", map[string]string{
		"Home.md": `# Home

- [[Projects MOC]]
- [[Laptop setup]] · [[Laptop setup 2024]]
- [[Home network]] · [[Boiler]]
- [[Car]] · [[Dentist]] · [[Bike maintenance]]
- [[Sourdough]]
- [[Books 2026]]
`,
		"Projects MOC.md": `# Projects MOC

Projects on the go:

- [[Plan v3|Garden shed]]
- [[Kitchen renovation]]
- [[Newsletter]]

Older: [[Plan v1]], [[Plan v2]]
`,
	}},
	{"2026-12-01T21:05:00+01:00", "daily", map[string]string{"Daily/2026-12-01.md": `# Tuesday 1 December

- Moved the compost bins to the side passage for the shed fitting.
- Sent the newsletter draft to the allotment committee.
`}},
	{"2026-12-02T21:40:00+01:00", "daily", map[string]string{"Daily/2026-12-02.md": `# Wednesday 2 December

- The worktop delivery is confirmed for mid-December.
- Quiet evening; read *Piranesi*.
`}},
}
