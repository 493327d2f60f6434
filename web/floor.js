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
  // Sorting "trouble first": offline, then held, then with open alerts, then status unknown.
  const RANK = { offline: 0, held: 1, alerts: 2, unknown: 3, ok: 4 };

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
    counts: { total: 0, online: 0, offline: 0, held: 0, alerts: 0, unknown: 0 },
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
        game: null, version: null, rulesDigest: null, configDigest: null,
        configured: [],     // device names from `info.devices`, in config order
        round: null, phase: null, held: null, heldInputs: 0, gaps: [],
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
      // The bare word; tables before issue 14 sent it as JSON ("online" with the quotes). An
      // empty retained payload (a cleared topic) leaves it unknown.
      const word = text.trim().replace(/^"|"$/g, "");
      if (word !== t.status) t.statusAt = meta.retain ? null : Date.now();
      t.status = word || null;
      touch(t);
      return;
    }
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
      // The alerts waiting for a person (docs/mqtt.md "alerts/open"), until acknowledged.
      const open = Array.isArray(p.open) ? p.open : [];
      t.open = open.map((a) => `#${a.id} ${text0(a.kind)}: ${text0(a.reason)}`);
      if (typeof p.overflow === "number" && p.overflow > 0) t.open.push(`${p.overflow} older`);
    } else if (suffix === "journal/status") {
      t.journal = { writable: p.writable !== false, reason: text0(p.reason), since: text0(p.since) };
      // The outbox's backlog as the table last managed to say it (a table before the count
      // says nothing: its cell keeps the dash).
      if (Number.isInteger(p.unsent) && p.unsent >= 0) t.unsent = { count: p.unsent, at: text0(p.ts) };
    } else {
      t.devices.set(device, { available: p.available !== false, fault: text0(p.fault) });
    }
    touch(t);
  }

  const text0 = (v) => (v === null || v === undefined || v === "" ? null : String(v));

  function onInfo(t, p) {
    t.version = text0(p.version);
    t.game = text0(p.game) || t.game;
    t.rulesDigest = text0(p.rules_digest);
    t.configDigest = text0(p.config_digest);
    t.configured = Array.isArray(p.devices)
      ? p.devices.map((d) => text0(d && d.name)).filter(Boolean) : [];
  }

  /** From `state` only these: game, round, phase, held, held_inputs, gaps (a device's missing
   * positions, as text). Nothing else is read: no field that holds a card (`cards`, `board`,
   * `hands`, `seats`, `face_up`, ...) is ever copied. */
  function onState(t, p, retained) {
    if (typeof p.game === "string") t.game = p.game;
    const round = typeof p.round === "number" ? p.round : null;
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
    const phase = typeof p.phase === "string" ? p.phase
      : p.hand && typeof p.hand.phase === "string" ? p.hand.phase : null;
    t.phase = phase;
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

  /** What one table is now, for its row, the counters, the sort and the filter. */
  function derive(t, now) {
    const alerts = [];
    if (t.journal && !t.journal.writable) {
      alerts.push(`journal not writable${t.journal.reason ? `: ${t.journal.reason}` : ""}`);
    }
    for (const line of t.open || []) alerts.push(`open ${line}`);
    const devices = [];
    const names = [...t.configured];
    for (const name of [...t.devices.keys()].sort()) if (!names.includes(name)) names.push(name);
    for (const name of names) {
      const d = t.devices.get(name);
      let health = "unknown";
      if (d) health = !d.available ? "down" : d.fault ? "fault" : "ok";
      devices.push({ name, health, fault: d ? d.fault : null });
      if (health === "down") alerts.push(`${name} unavailable${d.fault ? `: ${d.fault}` : ""}`);
      else if (health === "fault") alerts.push(`${name}: ${d.fault}`);
    }
    const status = t.status === "online" || t.status === "offline" ? t.status : "unknown";
    const kind = status === "offline" ? "offline" : t.held ? "held" : alerts.length ? "alerts"
      : status === "unknown" ? "unknown" : "ok";
    return { status, kind, alerts, devices, rate: roundRate(t.samples, now) };
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
    const seen = t.statusAt ? `since ${new Date(t.statusAt).toLocaleTimeString()} (seen by this page)` : "";
    put(t, "status", d.status === "unknown" ? "?" : d.status, seen);
    put(t, "game", t.game ? gameName(t.game) : DASH, t.game || "");
    const digests = [t.rulesDigest && `rules ${t.rulesDigest}`, t.configDigest && `config ${t.configDigest}`];
    put(t, "version", t.version || DASH, digests.filter(Boolean).join("\n"));
    put(t, "round", t.round === null ? DASH : String(t.round));
    put(t, "phase", t.phase || DASH);
    const held = t.held ? [t.held + (t.heldInputs ? ` (${t.heldInputs} kept)` : ""), ...t.gaps].join("; ") : "";
    put(t, "held", held, held);
    const n = t.samples.length;
    const rateTip = d.rate === null ? "needs two round changes seen by this page"
      : `${t.samples[n - 1].round - t.samples[0].round} rounds from ${new Date(t.samples[0].t).toLocaleTimeString()}`;
    put(t, "rate", d.rate === null ? DASH : String(Math.round(d.rate)), rateTip);
    const alerts = d.alerts.join("; ");
    put(t, "alerts", alerts, alerts);
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
    if (show === "held" && !t.held) return false;
    if (show === "alerts" && !d.alerts.length) return false;
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
    const c = { total: 0, online: 0, offline: 0, held: 0, alerts: 0, unknown: 0 };
    let shown = 0;
    for (const t of fl.tables.values()) {
      if (!t.derived) continue;
      c.total++;
      c[t.derived.status]++;
      if (t.held) c.held++;
      if (t.derived.alerts.length) c.alerts++;
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
  const subscriptions = fl.topics.map((topic) => ({ topic, qos: 0 }));
  fl.client = TablectlPage.connect(link, "floor", subscriptions, onMessage, onLink);
})();
