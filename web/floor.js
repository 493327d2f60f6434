/* The floor view (docs/floor.md): one row for every table of a site, fed by the tables'
 * retained topics alone over MQTT-over-WebSockets (mqtt-ws.js). It subscribes to six topic
 * filters below `tablectl/<site>/` and nothing else:
 *
 *   +/status  +/info  +/state  +/journal/status  +/device/+/status  +/alerts/open
 *
 * never `broadcast/#` (the delayed feed with every card), `event`, `round/result` or `cmd/#`.
 * `state` carries the cards the table has shown (docs/mqtt.md, "The card-exposure rule"): the
 * page reads from it only the round, the phase, the game and why a round is held, and never
 * keeps, let alone draws, any card.
 *
 * A table is **stale** when the page has heard nothing from it for two of its heartbeats
 * (`info.heartbeat_seconds`: the table says `status` `online` that often), offline at the
 * `offline` word (a clean stop or the broker's Last Will): TablectlPage.liveness (page.js).
 *
 * The subscriptions are QoS 0. The page's session is clean, so QoS 1 would keep nothing more
 * across a lost link (the retained messages come again on every connect), while its
 * acknowledgements would hold the broker to 20 messages in flight, so that 500 tables' 2500
 * retained messages come in round trips, slower. (At either QoS the broker must let a client's
 * queue hold them all: Mosquitto's default max_queued_messages of 1000 drops the rest;
 * docs/floor.md.)
 *
 * Built for 500 tables: one <tr> per table made once and updated in place (a cell is written
 * only when its text changes), every message only marks its table dirty, and the rows are
 * redrawn, sorted and counted at most once a frame (requestAnimationFrame).
 *
 * Address: floor.html?site=<site>[&broker=ws://host:port/mqtt][&keepalive=30][&sort=status]
 *          [&show=all][&find=text][&record=1]#user=<user>&pass=<password>
 * The user and password may also be query parameters; in the fragment (after #) they never
 * reach the web server or its log. `record=1` keeps every message received in
 * `window.floor.received` (a test's witness); otherwise only their number is kept.
 */
(function () {
  "use strict";

  const link = TablectlPage.link();
  const params = link.params;
  const site = params.get("site") || "";
  const brokerUrl = link.brokerUrl;
  const keepAll = link.keepAll;
  const prefix = `tablectl/${site}/`;
  const FILTERS = [
    "+/status", "+/info", "+/state", "+/journal/status", "+/device/+/status", "+/alerts/open",
  ];
  const RATE_WINDOW = 3600 * 1000;  // ms: the round rate counts the round changes of the last hour
  const DASH = "\u2014";

  const { gameName, tsMillis } = TablectlPage;
  const COLUMNS = ["table", "status", "game", "version", "round", "phase", "held", "rate",
    "alerts", "backlog", "devices"];
  // Sorting "trouble first": offline, then stale, then held, then with open alerts, then status
  // unknown.
  const RANK = { offline: 0, stale: 1, held: 2, alerts: 3, unknown: 4, ok: 5 };
  const LIVENESS_TICK = 500;  // ms: how often every table's liveness is looked at again

  // The Open alerts cell shows the worst of a table's alerts, then how many more: worst by this
  // order (lower first), the newest first within a kind. Each kind, and why it ranks there
  // (docs/floor.md "Open alerts"; the kinds of docs/mqtt.md `alerts/open`):
  const SEVERITY = {
    // Now, from journal/status: the journal cannot be written, or the table is held on a
    // journal it cannot replay. Nothing new is recorded or applied: the table has stopped.
    journal: 0,
    // A defect in tablectl itself (R40): the round is held and only a technician can say what
    // went wrong; the play may be wrong, not just stopped.
    "engine-error": 1,
    // Now, from device/<name>/status: a device is unavailable (unplugged, dead). The table
    // cannot read the cards it deals: the round cannot go on, the next cannot start.
    "device-down": 2,
    // The round waits for a person (round.resume or round.void): play at the table stops.
    "round-held": 3,
    // A device reported a fault (an open alert, or its status now): it may recover by itself,
    // but someone must look; it is often what held the round above.
    "device-fault": 4,
    // The journal could not be written for a while, now over: the table plays again, but what
    // caused it (a full disk, a failing drive) will stop it again until someone finds it.
    "journal-trouble": 5,
    // A kind this page does not know: from a newer table; ranked above the kinds that break
    // nothing, so that it is not buried.
    unknown: 6,
    // A command stuck retained at the broker (R54): refused each time it comes, nothing was
    // applied, but some client publishes what it must not.
    "retained-command": 7,
    // A dealer's move the rules refused (R15, a card no hand may draw): nothing changed; a
    // matter for the pit, not the technician.
    "dealer-error": 8,
    // The table plays outside its rounds-an-hour band: a business matter, nothing broken.
    pace: 9,
  };

  // Everything the page knows, on window for a test or a technician's console.
  const fl = (window.floor = {
    site, broker: brokerUrl, topics: FILTERS.map((f) => prefix + f),
    received: [],        // with record=1: every PUBLISH received {n, topic, payload, retain, at}
    messages: 0,         // PUBLISH packets received
    granted: null,       // the SUBACK: [{topic, granted}] (granted null: refused)
    link: "connecting",  // connecting connected subscribed backoff stopped
    linkDetail: null,
    connects: 0,         // accepted CONNACKs: 1 + the reconnects
    flushes: 0,          // redraws (at most one a frame, whatever the number of messages)
    tables: new Map(),   // table id -> what the page keeps of it (below)
    counts: { total: 0, online: 0, stale: 0, offline: 0, held: 0, alerts: 0, unknown: 0 },
    sort: params.get("sort") || "status",
    show: params.get("show") || "all",
    find: params.get("find") || "",
    rate: roundRate,     // for a test: roundRate(samples, now)
  });

  const $ = (id) => document.getElementById(id);
  const rows = $("rows");
  const dirty = new Set();
  let reorder = true;     // the rows' order may have changed
  let refilter = true;    // the filter changed: every row's visibility again
  let order = [];         // table ids in the order of the rows in the DOM
  let pending = false;    // a redraw is scheduled
  let fallback = null;

  /** What the page keeps of one table: never a card. */
  function table(id) {
    let t = fl.tables.get(id);
    if (!t) {
      t = {
        id,
        status: null,       // "online" / "offline" (the bare word of `status`), null: not known
        statusAt: null,     // when this page saw it change live (ms), null: from a retained one
        live: TablectlPage.liveness(),  // online / stale / offline (page.js)
        liveness: null,     // its last check: {state, word, ago, staleAfter, text}
        game: null,         // `info.game`, else `state.game`
        stateGame: null,    // `state.game`: at Dealer's Choice the game of the hand in play
        version: null, rulesDigest: null, configDigest: null,
        configured: [],     // device names from `info.devices`, in config order
        round: null, phase: null, hands: false, held: null, heldInputs: 0, gaps: [],
        journal: null,      // {writable, reason, since} from `journal/status`
        unsent: null,       // {count, at}: `journal/status.unsent` and its `ts`; null: never said
        devices: new Map(), // name -> {available, fault} from `device/<name>/status`
        samples: [],        // [{t, round}]: when the round number went up, for the rate
        lastSeq: {},        // topic suffix -> the newest seq taken (de-duplication)
        row: null, cells: null, shown: {}, rank: null,
      };
      fl.tables.set(id, t);
      reorder = true;
    }
    return t;
  }

  // -- messages ---------------------------------------------------------------------------

  const decoder = new TextDecoder();

  function onMessage(topic, bytes, meta) {
    const text = decoder.decode(bytes);
    fl.messages++;
    if (keepAll) {
      fl.received.push({ n: fl.received.length, topic, payload: text, retain: meta.retain, at: Date.now() });
    }
    if (!topic.startsWith(prefix)) return;
    const rest = topic.slice(prefix.length);
    const cut = rest.indexOf("/");
    if (cut < 1) return;
    const id = rest.slice(0, cut);
    const suffix = rest.slice(cut + 1);
    let device = null;
    if (!["status", "info", "state", "journal/status", "alerts/open"].includes(suffix)) {
      const m = /^device\/([^/]+)\/status$/.exec(suffix);
      if (!m) return;
      device = m[1];
    }
    const t = table(id);
    if (suffix === "status") {
      // The bare word; older tables sent it as JSON ("online" with the quotes). An
      // empty retained payload (a cleared topic) leaves it unknown. The table says `online`
      // again every heartbeat: only a change is news.
      const word = text.trim().replace(/^"|"$/g, "");
      if ((word || null) !== t.status) t.statusAt = meta.retain ? null : Date.now();
      t.status = word || null;
      t.live.status(text, meta.retain);
      relive(t);
      return;
    }
    t.live.heard(meta.retain);  // a live message is word from the table too
    let p;
    try { p = JSON.parse(text); } catch (err) { return; }
    if (!p || typeof p !== "object" || Array.isArray(p)) return;
    // De-duplicate by seq (docs/mqtt.md): an older or repeated message changes nothing.
    if (typeof p.seq === "number") {
      if (t.lastSeq[suffix] !== undefined && p.seq <= t.lastSeq[suffix]) return;
      t.lastSeq[suffix] = p.seq;
    }
    if (suffix === "info") onInfo(t, p);
    else if (suffix === "state") onState(t, p, meta.retain);
    else if (suffix === "alerts/open") {
      // The alerts waiting for a person (docs/mqtt.md "alerts/open"), until acknowledged: kept
      // as they come (oldest first), put in order when drawn (`alertLines`).
      const open = Array.isArray(p.open) ? p.open : [];
      t.open = open.filter((a) => a && typeof a === "object").map((a) => ({
        id: Number(a.id) || 0, kind: text0(a.kind) || "?", reason: text0(a.reason) || "",
        since: tsMillis(a.since) }));
      t.overflow = typeof p.overflow === "number" && p.overflow > 0 ? p.overflow : 0;
    } else if (suffix === "journal/status") {
      t.journal = { writable: p.writable !== false, reason: text0(p.reason), since: text0(p.since) };
      // The outbox's backlog as the table last managed to say it (a table before the count
      // says nothing: its cell keeps the dash).
      if (Number.isInteger(p.unsent) && p.unsent >= 0) t.unsent = { count: p.unsent, at: text0(p.ts) };
    } else {
      t.devices.set(device, { available: p.available !== false, fault: text0(p.fault),
        at: tsMillis(p.ts) });
    }
    touch(t);
  }

  /** Look at a table's liveness again; redraw its row only when what it shows changed. */
  function relive(t, now) {
    const l = t.live.check(now);
    const was = t.liveness;
    t.liveness = l;
    if (!was || was.text !== l.text || was.state !== l.state) touch(t);
  }

  const text0 = (v) => (v === null || v === undefined || v === "" ? null : String(v));

  function onInfo(t, p) {
    t.live.info(p);
    t.version = text0(p.version);
    t.infoGame = text0(p.game);
    t.game = t.infoGame || t.game;
    t.rulesDigest = text0(p.rules_digest);
    t.configDigest = text0(p.config_digest);
    t.configured = Array.isArray(p.devices)
      ? p.devices.map((d) => text0(d && d.name)).filter(Boolean) : [];
  }

  /** The round and phase of any game's `state` (docs/mqtt.md `state`): the banked games say
   * `round` and `phase`; the poker games (flop, stud, draw, Dealer's Choice) say them in
   * `hand` (`hand.round`, `hand.phase`; `hand` null between hands); Chinese Poker in `round`
   * (`round.round` while a round is dealt, its hands being set; null between rounds). Between
   * hands the number is not in `state`: `round` null (the page keeps the last it saw). */
  function roundOf(p) {
    if (typeof p.round === "number") {
      return { round: p.round, phase: typeof p.phase === "string" ? p.phase : null, hands: false };
    }
    if ("hand" in p) {  // poker
      const h = p.hand;
      if (h && typeof h === "object" && typeof h.round === "number") {
        return { round: h.round, phase: typeof h.phase === "string" ? h.phase : null, hands: true };
      }
      return { round: null, phase: "between hands", hands: true };
    }
    if (p.game === "chinese-poker" || (p.round && typeof p.round === "object")) {
      const r = p.round;
      if (r && typeof r === "object" && typeof r.round === "number") {
        return { round: r.round, phase: "setting", hands: false };
      }
      return { round: null, phase: "between rounds", hands: false };
    }
    return { round: null, phase: typeof p.phase === "string" ? p.phase : null, hands: false };
  }

  /** From `state` only these: game, round, phase, held, held_inputs, gaps (a device's missing
   * positions, as text); the round and phase where each game keeps them (`roundOf`). Nothing
   * else is read: no field that holds a card (`cards`, `board`, `hands`, `seats`, `face_up`,
   * ...) is ever copied. */
  function onState(t, p, retained) {
    if (typeof p.game === "string") {
      t.stateGame = p.game;
      if (!t.infoGame) t.game = p.game;
    }
    const where = roundOf(p);
    const round = where.round;
    t.hands = where.hands;
    if (round !== null) {
      if (t.round !== null && round < t.round) t.samples = [];  // the count went back: start again
      if (t.round !== null && round > t.round) {
        // The moment the round number went up: the payload's `ts` when it has one, else when a
        // live message came. A retained one without `ts` may be old: not a sample (the rounds
        // it skipped are counted by the next live change all the same).
        const at = typeof p.ts === "string" ? Date.parse(p.ts) : retained ? NaN : Date.now();
        if (Number.isFinite(at)) addSample(t, { t: at, round });
      }
      t.round = round;
    }
    t.phase = where.phase;
    t.held = text0(p.held);
    t.heldInputs = Number(p.held_inputs) || 0;
    t.gaps = p.gaps && typeof p.gaps === "object"
      ? Object.entries(p.gaps).map(([name, why]) => `${name}: ${String(why)}`) : [];
  }

  function addSample(t, s) {
    t.samples.push(s);
    const since = s.t - RATE_WINDOW;
    while (t.samples.length > 2 && t.samples[0].t < since) t.samples.shift();
    if (t.samples.length > 1000) t.samples.splice(0, t.samples.length - 1000);
  }

  /** Rounds per hour from the moments the round number went up ([{t (ms), round}], oldest
   * first): the rounds between the first and the last sample over the time between them; once
   * the table is later for its next round than its pace so far, over the time from the first
   * sample to `now` instead, so that a table that stops playing is seen slowing down. null with
   * fewer than two samples. */
  function roundRate(samples, now) {
    if (samples.length < 2) return null;
    const first = samples[0], last = samples[samples.length - 1];
    const rounds = last.round - first.round;
    const span = last.t - first.t;
    if (rounds <= 0 || span <= 0) return null;
    const elapsed = now - last.t > span / rounds ? now - first.t : span;
    return (rounds * 3600 * 1000) / elapsed;
  }

  function onLink(state, detail) {
    fl.link = state;
    fl.linkDetail = detail;
    for (const t of fl.tables.values()) t.live.link(state === "subscribed");
    if (state === "connected") {
      fl.connects++;
      for (const t of fl.tables.values()) t.lastSeq = {};  // the retained messages come again
    }
    if (state === "subscribed") fl.granted = detail;
    drawLink();
  }

  // -- drawing ----------------------------------------------------------------------------

  function touch(t) {
    dirty.add(t);
    schedule();
  }

  /** One redraw a frame, however many messages came; a timer stands in when the browser gives
   * no frames (a hidden tab) so that the counters still move. */
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(flush);
    fallback = setTimeout(flush, 1000);
  }

  /** Every alert of a table, worst first (`SEVERITY`, then the newest first, then the highest
   * id): each {kind, text}. The open ones from `alerts/open`, and what the retained topics
   * say is wrong now: the journal (`journal/status`) and each device (`device/<name>/status`). */
  function alertLines(t) {
    const items = [];
    const add = (kind, text, at, id) => items.push({
      kind, text, rank: kind in SEVERITY ? SEVERITY[kind] : SEVERITY.unknown,
      at: Number.isFinite(at) ? at : -Infinity, id: id || 0 });
    if (t.journal && !t.journal.writable) {
      add("journal", `journal not writable${t.journal.reason ? `: ${t.journal.reason}` : ""}`,
        tsMillis(t.journal.since));
    }
    for (const a of t.open || []) add(a.kind, `open #${a.id} ${a.kind}: ${a.reason}`, a.since, a.id);
    for (const [name, d] of t.devices) {
      if (!d.available) add("device-down", `${name} unavailable${d.fault ? `: ${d.fault}` : ""}`, d.at);
      else if (d.fault) add("device-fault", `${name}: ${d.fault}`, d.at);
    }
    items.sort((a, b) => a.rank - b.rank || b.at - a.at || b.id - a.id);
    return items;
  }

  /** What one table is now, for its row, the counters, the sort and the filter. */
  function derive(t, now) {
    const alerts = alertLines(t);
    const devices = [];
    const names = [...t.configured];
    for (const name of [...t.devices.keys()].sort()) if (!names.includes(name)) names.push(name);
    for (const name of names) {
      const d = t.devices.get(name);
      let health = "unknown";
      if (d) health = !d.available ? "down" : d.fault ? "fault" : "ok";
      devices.push({ name, health, fault: d ? d.fault : null });
    }
    const live = t.liveness || t.live.check(now);
    t.liveness = live;
    const status = live.state;  // online, stale, offline, unknown
    const trouble = alerts.length > 0 || (t.overflow || 0) > 0;
    const kind = status === "offline" ? "offline" : status === "stale" ? "stale"
      : t.held ? "held" : trouble ? "alerts" : status === "unknown" ? "unknown" : "ok";
    return { status, kind, alerts, trouble, live, devices, rate: roundRate(t.samples, now) };
  }

  function makeRow(t) {
    const tr = document.createElement("tr");
    tr.dataset.table = t.id;
    t.cells = {};
    for (const c of COLUMNS) {
      const td = document.createElement("td");
      td.className = `c-${c}`;
      tr.append(td);
      t.cells[c] = td;
      t.shown[`${c}.title`] = "";
    }
    t.cells.table.textContent = t.id;
    t.row = tr;  // put in the table by the next reorder (a new table sets it)
  }

  /** Write a cell only when its text changed. */
  function put(t, column, text, title) {
    if (t.shown[column] !== text) {
      t.cells[column].textContent = text;
      t.shown[column] = text;
    }
    const tip = title || "";
    if (t.shown[`${column}.title`] !== tip) {
      t.cells[column].title = tip;
      t.shown[`${column}.title`] = tip;
    }
  }

  /** The Open alerts cell: the worst alert, cut with an ellipsis when long, and "(+N more)"
   * beside it, never cut (floor.css `.worst`, `.more`); written only when either changed. */
  function putAlerts(t, worst, more, tip) {
    const td = t.cells.alerts;
    if (t.shown.alerts !== worst + more) {
      const w = document.createElement("span");
      w.className = "worst";
      w.textContent = worst;
      const m = document.createElement("span");
      m.className = "more";
      m.textContent = more;
      const box = document.createElement("div");
      box.className = "alerts";
      box.append(w, ...(more ? [m] : []));
      td.replaceChildren(...(worst ? [box] : []));
      t.shown.alerts = worst + more;
    }
    if (t.shown["alerts.title"] !== tip) {
      td.title = tip;
      t.shown["alerts.title"] = tip;
    }
  }

  function setData(el, key, value) {
    if (el.dataset[key] !== value) el.dataset[key] = value;
  }

  function drawRow(t, now) {
    if (!t.row) makeRow(t);
    const d = derive(t, now);
    t.derived = d;
    const tr = t.row;
    setData(tr, "status", d.status);
    setData(tr, "kind", d.kind);
    setData(tr, "held", t.held ? "1" : "0");
    setData(tr, "alerts", String(d.alerts.length));
    setData(tr, "worst", d.alerts.length ? d.alerts[0].kind : "");
    put(t, "status", d.live.text, statusTip(t, d.live));
    // Dealer's Choice: `state.game` is the game of the hand in play (the table's between hands).
    const playing = t.game && t.stateGame && t.stateGame !== t.game ? t.stateGame : null;
    const game = t.game ? gameName(t.game) + (playing ? `: ${gameName(playing)}` : "") : DASH;
    put(t, "game", game, [t.game, playing].filter(Boolean).join(": "));
    const digests = [t.rulesDigest && `rules ${t.rulesDigest}`, t.configDigest && `config ${t.configDigest}`];
    put(t, "version", t.version || DASH, digests.filter(Boolean).join("\n"));
    put(t, "round", t.round === null ? DASH : String(t.round));
    put(t, "phase", t.phase || DASH);
    const held = t.held ? [t.held + (t.heldInputs ? ` (${t.heldInputs} kept)` : ""), ...t.gaps].join("; ") : "";
    put(t, "held", held, held);
    const n = t.samples.length;
    const unit = t.hands ? "hands" : "rounds";
    const rateTip = d.rate === null ? `needs two ${unit.slice(0, -1)} changes seen by this page`
      : `${t.samples[n - 1].round - t.samples[0].round} ${unit} from ${new Date(t.samples[0].t).toLocaleTimeString()}`;
    put(t, "rate", d.rate === null ? DASH : String(Math.round(d.rate)), rateTip);
    // The worst alert and how many more (the older ones the table no longer lists included).
    const more = d.alerts.length - 1 + (t.overflow || 0);
    const worst = d.alerts.length ? d.alerts[0].text
      : t.overflow ? `${t.overflow} older open alerts` : "";
    const tip = d.alerts.map((a) => a.text)
      .concat(t.overflow ? [`and ${t.overflow} older, beyond the 50 the table lists`] : [])
      .join("\n");
    putAlerts(t, worst, d.alerts.length && more > 0 ? ` (+${more} more)` : "", tip);
    put(t, "backlog", t.unsent ? String(t.unsent.count) : DASH, backlogTip(t.unsent));
    const sig = d.devices.map((x) => `${x.name}=${x.health}:${x.fault || ""}`).join(",");
    if (t.shown.devices !== sig) {
      t.cells.devices.replaceChildren(...d.devices.map((x) => {
        const chip = document.createElement("span");
        chip.className = "dev";
        chip.dataset.device = x.name;
        chip.dataset.health = x.health;
        chip.textContent = x.health === "fault" ? `${x.name} ${x.fault}` : x.name;
        chip.title = { ok: "available, no fault", down: "unavailable", unknown: "no status yet" }[x.health]
          || `fault ${x.fault}`;
        if (x.health === "down" && x.fault) chip.title += `: ${x.fault}`;
        return chip;
      }));
      t.shown.devices = sig;
    }
    const rank = sortKey(t);
    if (rank !== t.rank) { t.rank = rank; reorder = true; }
  }

  /** The Status cell's tooltip: since when (as this page saw it), and how the page knows. */
  function statusTip(t, live) {
    const since = t.statusAt ? ` since ${new Date(t.statusAt).toLocaleTimeString()} (seen by this page)` : "";
    const beat = live.staleAfter === null
      ? "the table does not say how often it says online (a tablectl from before the heartbeat, or "
        + "heartbeat_seconds = 0): offline only when the broker publishes its Last Will"
      : `the table says online every ${live.staleAfter / 2} s; stale after ${live.staleAfter} s `
        + "without word from it, offline at its clean stop or the broker's Last Will";
    const heard = live.ago === null ? "" : `; last heard ${live.ago} s ago`;
    return `${live.word || "no status"}${since}${heard}\n${beat}`;
  }

  /** The Unsent cell's tooltip: what the figure is and how old it may be (docs/floor.md). */
  function backlogTip(u) {
    if (!u) return "the table has not said its unsent backlog (no journal/status with it yet)";
    const when = Number.isFinite(tsMillis(u.at))
      ? ` at ${new Date(tsMillis(u.at)).toLocaleTimeString()}` : "";
    return `messages in the table's outbox not yet acknowledged by the broker, as the table ` +
      `last said${when}: told again at most every 5 s while it changes and at once when it ` +
      `reaches 0; a table that cannot reach the broker cannot update it`;
  }

  function sortKey(t) {
    const d = t.derived;
    if (fl.sort === "status") return RANK[d.kind];
    if (fl.sort === "game") return t.game || "\uffff";
    if (fl.sort === "rate") return d.rate === null ? Infinity : -d.rate;
    return 0;
  }

  const collator = new Intl.Collator("en", { numeric: true });  // s2 before s10
  const byId = (a, b) => collator.compare(a.id, b.id);

  function compare(a, b) {
    if (a.rank < b.rank) return -1;
    if (a.rank > b.rank) return 1;
    return byId(a, b);
  }

  function visible(t) {
    const d = t.derived;
    const show = fl.show;
    if (show === "trouble" && (d.kind === "ok" || d.kind === "unknown")) return false;
    if (show === "offline" && d.status !== "offline") return false;
    if (show === "stale" && d.status !== "stale") return false;
    if (show === "held" && !t.held) return false;
    if (show === "alerts" && !d.trouble) return false;
    if (show === "online" && d.status !== "online") return false;
    const find = fl.find.trim().toLowerCase();
    if (find) {
      const hay = `${t.id} ${t.game || ""} ${t.game ? gameName(t.game) : ""}`.toLowerCase();
      if (!hay.includes(find)) return false;
    }
    return true;
  }

  function flush() {
    if (!pending) return;
    pending = false;
    clearTimeout(fallback);
    fl.flushes++;
    const now = Date.now();
    for (const t of dirty) {
      drawRow(t, now);
      if (!refilter) {
        const hide = !visible(t);
        if (t.row.hidden !== hide) t.row.hidden = hide;
      }
    }
    dirty.clear();
    if (reorder) {
      reorder = false;
      const sorted = [...fl.tables.values()].filter((t) => t.row).sort(compare);
      if (sorted.some((t, i) => order[i] !== t.id) || sorted.length !== order.length) {
        rows.append(...sorted.map((t) => t.row));  // moves the existing rows; makes none
        order = sorted.map((t) => t.id);
      }
    }
    if (refilter) {
      refilter = false;
      for (const t of fl.tables.values()) {
        if (!t.row) continue;
        const hide = !visible(t);
        if (t.row.hidden !== hide) t.row.hidden = hide;
      }
    }
    drawCounts();
  }

  function drawCounts() {
    const c = { total: 0, online: 0, stale: 0, offline: 0, held: 0, alerts: 0, unknown: 0 };
    let shown = 0;
    for (const t of fl.tables.values()) {
      if (!t.derived) continue;
      c.total++;
      c[t.derived.status]++;
      if (t.held) c.held++;
      if (t.derived.trouble) c.alerts++;
      if (!t.row.hidden) shown++;
    }
    fl.counts = c;
    for (const [k, v] of Object.entries(c)) {
      const e = $(`count-${k}`);
      if (e.textContent !== String(v)) e.textContent = String(v);
      e.parentElement.dataset.nonzero = v ? "1" : "0";
    }
    $("shown").textContent = shown === c.total ? "" : `showing ${shown} of ${c.total}`;
  }

  function drawLink() {
    const ls = $("link-status");
    ls.dataset.link = fl.link;
    ls.textContent = fl.link === "subscribed" ? "live" : fl.link;
    const b = $("banner");
    const down = fl.link !== "subscribed" && fl.link !== "connected";
    const text = down ? "Connecting to the broker\u2026 (the rows show what was last received)" : "";
    b.hidden = !text;
    b.textContent = text;
  }

  /** Every 5 s the round rates again: a table that stopped playing slows down on the screen. */
  function tick() {
    for (const t of fl.tables.values()) if (t.samples.length > 1) dirty.add(t);
    if (dirty.size) schedule();
  }

  /** Every LIVENESS_TICK each table's liveness again: a silent table turns stale, and a stale
   * one's "last heard N s ago" counts up (rows redrawn only when that changed). */
  function liveTick() {
    const now = Date.now();
    for (const t of fl.tables.values()) relive(t, now);
  }

  // -- start ------------------------------------------------------------------------------

  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(site)) {
    $("help").hidden = false;
    $("floor").hidden = true;
    return;
  }
  document.title = `Floor ${site}`;
  $("site-name").textContent = site;
  for (const [id, key] of [["sort", "sort"], ["show", "show"]]) {
    const sel = $(id);
    if ([...sel.options].some((o) => o.value === fl[key])) sel.value = fl[key];
    else fl[key] = sel.value;
    sel.addEventListener("change", () => {
      fl[key] = sel.value;
      if (key === "sort") for (const t of fl.tables.values()) dirty.add(t);
      refilter = true;
      reorder = true;
      schedule();
    });
  }
  const find = $("find");
  find.value = fl.find;
  find.addEventListener("input", () => { fl.find = find.value; refilter = true; schedule(); });
  drawLink();
  drawCounts();
  setInterval(tick, 5000);
  setInterval(liveTick, LIVENESS_TICK);
  const subscriptions = fl.topics.map((topic) => ({ topic, qos: 0 }));
  fl.client = TablectlPage.connect(link, "floor", subscriptions, onMessage, onLink);
})();
