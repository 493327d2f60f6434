/* The table-side scoreboard (docs/scoreboard.md): reads one table's retained topics over
 * MQTT-over-WebSockets (mqtt-ws.js) and draws them. It subscribes to five topics below the
 * table's base and nothing else: `status`, `info` (what the table posts: limits, pay tables,
 * the collection schedule), `state`, `display/eztrak` and `round/result`, the topics a
 * read-only display user may read. It never asks for `broadcast/#` (the delayed feed with every
 * card), `event`, or anything of another table: it can show only what the table has already
 * shown, because those topics carry nothing more (docs/mqtt.md, "The card-exposure rule").
 *
 * Address: scoreboard.html?table=tablectl/<site>/<table>[&broker=ws://host:port/mqtt]
 *          [&keepalive=30][&record=1]#user=<user>&pass=<password>
 * The user and password may also be query parameters; in the fragment (after #) they never
 * reach the web server or its log. `record=1` keeps every message received in
 * `window.scoreboard.received` (a test's witness); otherwise only the last 200 are kept.
 *
 * This file is the page's frame: the link, the header (table, game, round and phase, limits,
 * the bet timer, the table's and the link's status), the banner, and what the table posts
 * (`info.posted`, a page at a time where its place cannot hold it all). The table itself is
 * drawn by the view its game's spec names (`info.screen`: web/views/<screen>.js, registered in
 * `TablectlViews`; web/draw.js says how a view is made), in a <main> of its own; a screen with
 * no view loaded is drawn by the plain "table" view.
 */
(function () {
  "use strict";

  const link = TablectlPage.link();
  const params = link.params;
  const base = (params.get("table") || "").replace(/\/+$/, "");
  const brokerUrl = link.brokerUrl;
  const keepAll = link.keepAll;
  const { gameName, tsMillis } = TablectlPage;
  const TOPICS = ["status", "info", "state", "display/eztrak", "round/result"];
  const KEPT = 200;

  const { $, el } = TablectlDraw;
  const VIEWS = TablectlViews;

  // Everything the page knows, on window for a test or a technician's console.
  const sb = (window.scoreboard = {
    base, broker: brokerUrl, topics: TOPICS.map((t) => `${base}/${t}`),
    received: [],        // every PUBLISH received: {n, topic, payload (text), qos, retain, at}
    granted: null,       // the SUBACK: [{topic, granted}] (granted null: refused)
    link: "connecting",  // connecting connected subscribed backoff stopped
    linkDetail: null,
    status: null,        // the table's `status`: online / offline
    state: null, eztrak: null, info: null, result: null, results: [],
    offsets: [],         // the table's clock less this screen's, per recent live state
    connects: 0,         // accepted CONNACKs: 1 + the reconnects
    renders: 0,
  });
  const lastSeq = {};
  const live = TablectlPage.liveness();  // online, stale, offline: web/page.js
  const mounted = new Map();  // screen -> its <main>, made the first time it is shown

  // -- messages ---------------------------------------------------------------------------

  function onMessage(topic, bytes, meta) {
    const text = new TextDecoder().decode(bytes);
    sb.received.push({ n: sb.received.length ? sb.received[sb.received.length - 1].n + 1 : 0,
      topic, payload: text, qos: meta.qos, retain: meta.retain, at: Date.now() });
    if (!keepAll && sb.received.length > KEPT) sb.received.splice(0, sb.received.length - KEPT);
    const suffix = topic.slice(base.length + 1);
    if (suffix === "status") {
      sb.status = text.replace(/^"|"$/g, "");  // older tables sent "online" quoted
      live.status(text, meta.retain);
      render();
      return;
    }
    live.heard(meta.retain);
    let payload;
    try { payload = JSON.parse(text); } catch (err) { return; }
    // De-duplicate by seq (docs/mqtt.md): an older or repeated message changes nothing.
    if (typeof payload.seq === "number") {
      if (lastSeq[suffix] !== undefined && payload.seq <= lastSeq[suffix]) return;
      lastSeq[suffix] = payload.seq;
    }
    if (suffix === "state") onState(payload, meta.retain);
    else if (suffix === "display/eztrak") sb.eztrak = payload;
    else if (suffix === "info") {
      sb.info = payload;
      live.info(payload);
    }
    else if (suffix === "round/result") {
      sb.result = payload;
      sb.results.push(payload);
      if (sb.results.length > 50) sb.results.shift();
    }
    render();
  }

  function onState(state, retained) {
    // The bet timer (R28) counts down to the table's `bets_close_at`, read on the table's
    // clock: a live state's `ts` (its record's time) says how far this screen's clock is from
    // it, less the delivery time; the largest of the recent ones is the least delayed.
    if (!retained && state.ts) {
      sb.offsets.push(tsMillis(state.ts) - Date.now());
      if (sb.offsets.length > 20) sb.offsets.shift();
    }
    sb.state = state;
  }

  function tableNow() {
    return Date.now() + (sb.offsets.length ? Math.max(...sb.offsets) : 0);
  }

  function onLink(state, detail) {
    sb.link = state;
    live.link(state === "subscribed" || state === "connected");
    sb.linkDetail = detail;
    if (state === "connected") {
      sb.connects++;
      for (const k of Object.keys(lastSeq)) delete lastSeq[k];  // the retained ones come again
    }
    if (state === "subscribed") sb.granted = detail;
    render();
  }

  // -- drawing ----------------------------------------------------------------------------

  function drawTimer() {
    const box = $("bet-timer");
    const st = sb.state;
    const posted = sb.info && sb.info.posted;
    // The timer's length: the EZTRAK board's, else what `info` posts (absent: no timer).
    const length = (sb.eztrak && sb.eztrak.bet_timer) || (posted && posted.bet_timer) || 0;
    if (!length) { box.dataset.state = "none"; box.textContent = ""; return; }
    if (st && st.phase === "betting" && st.bets_close_at) {
      const left = Math.max(0, Math.ceil((tsMillis(st.bets_close_at) - tableNow()) / 1000));
      box.dataset.state = "running";
      box.dataset.left = left;
      box.textContent = `Bets close in ${left} s`;
    } else if (st && st.phase !== "betting") {
      box.dataset.state = "closed";
      box.textContent = "No more bets";
    } else {
      box.dataset.state = "idle";
      box.textContent = `Bet timer ${length} s`;
    }
  }

  // -- what the table posts (`info.posted`) ------------------------------------------------

  const WAGERS = { ...VIEWS.table.SIDE_BETS, blind: "Blind", base: "Base", ante: "Ante", play: "Play",
    player: "Player", banker: "Banker", tie: "Tie", insurance: "Insurance" };
  const STRUCTURES = { "fixed-limit": "Fixed limit", "spread-limit": "Spread limit",
    "pot-limit": "Pot limit", "no-limit": "No limit" };
  const range = (low, high) => `${low}\u2013${high}`;

  /** A pay table's category id as the layout reads it: "red-8-or-more" "8 or more red cards",
   * "cards-3" "3-card bust", "seven-card-straight-flush-joker" "7-card straight flush (joker)". */
  function handName(hand) {
    let m = /^red-(\d)(-or-more)?$/.exec(hand);
    if (m) return `${m[1]}${m[2] ? " or more" : ""} red cards`;
    m = /^cards-(\d)(-or-more)?$/.exec(hand);
    if (m) return m[2] ? `${m[1]} or more cards bust` : `${m[1]}-card bust`;
    let text = hand.replace(/-joker$/, " (joker)").replace(/-royal-match$/, " + royal match")
      .replace(/^five-aces$/, "5 aces").replace(/-/g, " ").replace(/^seven card /, "7-card ");
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function stakesText(b) {
    const name = STRUCTURES[b.structure] || b.structure;
    if (!b.stakes) return name;
    const late = b.late_stakes ? ` / ${range(...b.late_stakes)}` : "";
    return `${name} ${range(...b.stakes)}${late}`;
  }

  /** The header's limits at another game than baccarat: a banked game's table limits, a poker
   * table's structure and stakes, a Chinese Poker point. */
  function limitsText(p) {
    if (p.limits) return `Limits ${range(p.limits.min, p.limits.max)}`;
    if (p.betting) return stakesText(p.betting);
    if (p.points) return `Point ${p.points.point}`;
    return "";
  }

  function postedFacts(p) {
    const facts = [];
    if (p.limits) {
      facts.push(["Table limits", range(p.limits.min, p.limits.max)]);
      for (const [spot, lim] of Object.entries(p.limits.spots || {})) {
        facts.push([`${WAGERS[spot] || spot} limits`, range(lim.min, lim.max)]);
      }
    }
    const b = p.betting;
    if (b) {
      facts.push(["Betting", stakesText(b)], ["Blinds", b.blinds.join(" / ")]);
      if (b.kill !== "none") facts.push(["Kill", `${b.kill} kill`]);
      if (b.buy_in) facts.push(["Buy-in", `${b.buy_in} minimum`]);
      for (const g of b.games || []) {
        facts.push([gameName(g.game), `${stakesText(g)}, blinds ${g.blinds.join(" / ")}`]);
      }
    }
    if (p.points) {
      facts.push(["Point", p.points.point], ["Buy-in", `${p.points.buy_in} minimum`],
        ["Table limit", range(p.points.table_limit.min, p.points.table_limit.max)]);
    }
    if (p.bet_timer) facts.push(["Bet timer", `${p.bet_timer} s`]);
    return facts;
  }

  function paytable(t) {
    const box = el("div", { class: "paytable-box", "data-paytable": t.name, "data-wager": t.wager });
    box.append(el("h3", {}, `${WAGERS[t.wager] || t.wager} (${t.name})`));
    const table = el("table", { class: "paytable" });
    const envy = Object.fromEntries((t.envy || []).map((e) => [e.hand, e.amount]));
    for (const row of t.pays) {
      const tr = el("tr", { "data-hand": row.hand });
      tr.append(el("td", { class: "hand" }, handName(row.hand)), el("td", { class: "pay" }, row.pays));
      if (t.envy) tr.append(el("td", { class: "envy" }, envy[row.hand] ? `Envy ${envy[row.hand]}` : ""));
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  /** The pays the rules fix (baccarat's spots, a pure 21.5, insurance) as one more table. */
  function fixedPays(pays) {
    const box = el("div", { class: "paytable-box", "data-paytable": "fixed" });
    box.append(el("h3", {}, "Pays"));
    const table = el("table", { class: "paytable" });
    for (const row of pays) {
      const tr = el("tr", { "data-hand": row.wager });
      tr.append(el("td", { class: "hand" }, `${WAGERS[row.wager] || row.wager}: ${row.hand}`),
        el("td", { class: "pay" }, row.pays));
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  /** The collection schedule as a card room posts it: a banked game's option (table limit, the
   * player-dealer's fee by total action, the player's fee) or a poker table's (the fee by the
   * number of players, per hand or per half hour). Each row [what, fee]; a head row has no fee. */
  function collectionRows(c) {
    const rows = [];
    if (c.per) {  // a poker table (R44)
      rows.push([c.per === "hand" ? "Per hand, by players dealt in" : "Per half hour, each seated player"]);
      for (const r of c.rates) {
        const who = r.max_players === null ? `${r.min_players} or more`
          : r.max_players === r.min_players ? `${r.min_players}` : `${r.min_players}\u2013${r.max_players}`;
        rows.push([`${who} players`, r.fee]);
      }
      if (c.modified_fee) rows.push(["Hand ended before the flop", c.modified_fee]);
      if (c.button_fee) rows.push(["The buttons' holder", c.button_fee]);
      if (c.table_limits.length) rows.push([`For a ${c.table_limits.map((l) => range(l.lower, l.higher)).join(" or ")} table`]);
      if (c.buy_in) rows.push(["Buy-in", c.buy_in]);
      return rows;
    }
    rows.push([`Table limit ${range(c.table_min, c.table_max)}; player-dealer, by total action`]);
    for (const b of c.brackets) rows.push([`from ${b.min_action}`, b.fee]);
    const spots = c.player_fee_spots.length
      ? ` (${c.player_fee_spots.map((s) => WAGERS[s] || s).join(", ")} only)` : "";
    if (c.player_fee_brackets.length) {
      rows.push([`Player, by the wager${spots}`]);
      for (const b of c.player_fee_brackets) rows.push([`from ${b.min_action}`, b.fee]);
    } else if (Number(c.player_fee) > 0) {
      rows.push([`Player, per ${c.player_fee_per}${spots}`, c.player_fee]);
    } else {
      rows.push(["Player", "none"]);
    }
    return rows;
  }

  /** `info.posted` in the posted panel, which goes into the view of the table's game. */
  function drawPosted(view) {
    const panel = $("posted-panel");
    const p = sb.info && sb.info.posted;
    panel.hidden = !p || !view;
    if (!p || !view) return;
    if (panel.parentNode !== view) view.append(panel);
    $("posted-facts").replaceChildren(...postedFacts(p).flatMap(([k, v]) =>
      [el("dt", {}, k), el("dd", { "data-posted": k }, v)]));
    const fixed = p.pays && p.pays.length ? [fixedPays(p.pays)] : [];
    $("paytables").replaceChildren(...fixed, ...(p.paytables || []).map(paytable));
    const c = p.collection;
    const options = c.per ? c.options : [c.option];
    $("collection-title").textContent = `Collection: option${options.length > 1 ? "s" : ""} ${options.join(" and ")}`;
    $("collection").tBodies[0].replaceChildren(...collectionRows(c).map(([what, fee]) => {
      const tr = el("tr");
      if (fee === undefined) tr.append(el("td", { class: "head", colSpan: 2 }, what));
      else tr.append(el("td", {}, what), el("td", { class: "fee" }, fee));
      return tr;
    }));
  }

  // What the table posts, a page at a time when its place cannot hold it all (a full table's
  // layouts give it a column: docs/scoreboard.md "A full table"): its blocks (the facts, each pay
  // table, the collection schedule) in pages of as many as fit, in order, a block too tall for
  // a page alone split between its rows (its heading on each part); one page shown at a time,
  // the next every POSTED_PAGE_SECONDS, the heading saying which ("Posted 1/3").
  const POSTED_PAGE_SECONDS = 10;
  const POSTED_MIN_LINES = 6;  // the least a place for it must hold under its heading
  let postedPages = [];  // each a list of parts: [block, first row, row after the last]
  let postedPage = 0;
  const overflows = (e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1;
  const postedBlocks = () => [$("posted-facts"), ...$("paytables").children, $("collection-box")];
  /** A block's rows: a fact's term and value, a table's rows. */
  const rowsOf = (block) => (block.id === "posted-facts"
    ? [...block.querySelectorAll("dt")].map((dt) => [dt, dt.nextElementSibling])
    : [...block.querySelectorAll("tr")].map((tr) => [tr]));

  /** Exactly the parts of `page` shown. */
  function showParts(page) {
    for (const block of postedBlocks()) {
      const part = page.find((p) => p[0] === block);
      block.hidden = !part;
      rowsOf(block).forEach((row, i) => {
        for (const e of row) e.hidden = !part || i < part[1] || i >= part[2];
      });
    }
  }

  /** Whether what the table posts can be shown in its place a page at a time: no block wider
   * than the panel, and room under the heading for POSTED_MIN_LINES lines (a view that lays
   * itself out asks: banked.js's fit). Every block is shown after. */
  function postedFits() {
    const panel = $("posted-panel");
    if (panel.hidden || !panel.isConnected) return true;
    const blocks = postedBlocks();
    showParts(blocks.map((b) => [b, 0, rowsOf(b).length]));
    const style = getComputedStyle(panel);
    const title = $("posted-title");
    const room = panel.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)
      - title.offsetHeight - parseFloat(getComputedStyle(title).marginBottom);
    return room >= POSTED_MIN_LINES * parseFloat(style.lineHeight)
      && blocks.every((b) => b.scrollWidth <= b.clientWidth + 1);
  }

  /** The posted panel's pages, for its place now (after the view has laid itself out); none
   * when it holds everything. */
  function pagePosted() {
    const panel = $("posted-panel");
    const whole = postedBlocks().map((b) => [b, 0, rowsOf(b).length]);
    showParts(whole);
    postedPages = [];
    if (!panel.hidden && overflows(panel)) {
      let page = [];
      const fits = (parts) => {
        showParts(parts);
        return !overflows(panel);
      };
      for (const [block, , rows] of whole) {
        let from = 0;
        while (from < rows) {
          const rest = [block, from, rows];
          if (fits([...page, rest])) {
            page.push(rest);
            break;
          }
          if (page.length && fits([rest])) {  // whole on a page of its own
            postedPages.push(page);
            page = [rest];
            break;
          }
          let to = from;  // too tall for a page: as many of its rows as fit here, the rest next
          while (to < rows && fits([...page, [block, from, to + 1]])) to++;
          if (to === from && page.length) {
            postedPages.push(page);
            page = [];
            continue;
          }
          to = Math.max(to, from + 1);
          postedPages.push([...page, [block, from, to]]);
          page = [];
          from = to;
        }
      }
      if (page.length) postedPages.push(page);
    }
    showPostedPage();
  }

  function showPostedPage() {
    const n = postedPages.length;
    if (n) showParts(postedPages[postedPage % n]);
    sb.postedPage = n ? [postedPage % n + 1, n] : null;
    $("posted-title").textContent = n > 1 ? `Posted ${postedPage % n + 1}/${n}` : "Posted";
  }

  /** The table's liveness as the header's pill and the banner say it (TablectlPage.liveness,
   * web/page.js): `status` (online, offline, stale or unknown: the pill's data-status), `pill`
   * (its text) and `banner` (what the banner says, null when nothing is wrong). A table is
   * stale when two of its heartbeats (`info.heartbeat_seconds`) went by without a word from it:
   * a hung or cut-off table, before the broker's Last Will says offline. The frame asks again
   * every quarter second (drawStatus), so a table that goes silent shows without a message. */
  function tableLiveness() {
    const now = live.check();
    sb.liveness = now;
    if (now.state === "stale") {
      return { status: "stale", pill: `table ${now.text}`, banner: `Table not heard from: ${now.text}` };
    }
    const status = now.state === "unknown" ? "unknown" : now.state;
    return {
      status,
      pill: `table ${now.word || "?"}`,
      banner: status === "offline" ? "Table offline" : null,
    };
  }

  /** What the banner says, first that applies: the link to the broker down (nothing else can be
   * known then), the table offline or silent (tableLiveness), a held round (`state.held`: a
   * device fault or a lost card while the round's cards were being read, a misread position, an
   * engine error; every game's `state` carries it), a device whose count has a hole that is
   * being asked for again (`state.gaps`). {kind, text}, or null. The display role reads no
   * `device/+/status`: a device fault outside a round holds nothing and is not shown here
   * (docs/scoreboard.md "The banner"). */
  function bannerFor(live) {
    const st = sb.state;
    if (sb.link !== "subscribed" && sb.link !== "connected") {
      return { kind: "link", text: "Connecting to the table\u2026" };
    }
    if (live.banner) return { kind: live.status, text: live.banner };
    if (st && st.held) return { kind: "held", text: `Round held: ${st.held}` };
    if (st && st.gaps && Object.keys(st.gaps).length) {
      return { kind: "device", text: `Waiting for the ${Object.keys(st.gaps).sort().join(" and ")}` };
    }
    return null;
  }

  /** The header's two pills and the banner: on every message, and every quarter second. */
  function drawStatus() {
    const live = tableLiveness();
    const ts = $("table-status");
    ts.dataset.status = live.status;
    ts.textContent = live.pill;
    const ls = $("link-status");
    ls.dataset.link = sb.link;
    ls.textContent = sb.link === "subscribed" ? "live" : sb.link;
    const b = $("banner");
    const said = bannerFor(live);
    b.hidden = !said;
    b.textContent = said ? said.text : "";
    b.title = b.textContent;  // the whole of a reason too long for the line
    b.dataset.kind = said ? said.kind : "";
    sb.banner = said;
  }

  /** The screen this table is drawn with: the one its `info` names (its game's spec), else
   * baccarat's when an EZTRAK board speaks before `info` came, else the plain one; a screen
   * whose view is not loaded on this page falls back to the plain one too. */
  function screenName() {
    const named = sb.info && sb.info.screen ? sb.info.screen : sb.eztrak ? "baccarat" : "table";
    return VIEWS[named] ? named : "table";
  }

  /** The <main> of `screen`'s view, mounted once; the others hidden. */
  function viewRoot(screen) {
    let root = mounted.get(screen);
    if (!root) {
      root = el("main", { id: screen, class: "view" });
      root.dataset.screen = screen;
      $("help").after(root);
      VIEWS[screen].mount(root, context());
      mounted.set(screen, root);
    }
    for (const [name, other] of mounted) other.hidden = name !== screen;
    return root;
  }

  function context() {
    return { sb, draw: TablectlDraw, gameName, tsMillis, tableNow, postedFits };
  }

  /** The header's round and phase: the view's own reading of `state`, else state.round/phase. */
  function headerFacts(view) {
    const st = sb.state;
    if (view.facts) return view.facts(context()) || {};
    return st ? { round: st.round, phase: st.phase } : {};
  }

  function render() {
    sb.renders++;
    const st = sb.state;
    const game = st ? st.game : sb.eztrak ? "ez-baccarat-panda8" : sb.info ? sb.info.game : null;
    $("table-name").textContent = st ? st.table : sb.eztrak ? sb.eztrak.table : base.split("/").pop();
    $("game-name").textContent = game ? gameName(game) : "";
    const posted = sb.info && sb.info.posted;
    $("limits").textContent = posted ? limitsText(posted) : "";
    $("limits").dataset.from = posted ? "info" : "";
    let root = null;
    if (game) {
      const screen = screenName();
      sb.screen = screen;
      document.body.dataset.game = screen === "baccarat" ? "baccarat" : "other";
      document.body.dataset.screen = screen;
      root = viewRoot(screen);
      drawPosted(root);  // before the view, which may lay itself out around it
      VIEWS[screen].render(root, context());  // (baccarat's board limits win over info's)
      const facts = headerFacts(VIEWS[screen]);
      sb.facts = facts;
      $("round").textContent = facts.round === undefined || facts.round === null ? "-" : facts.round;
    }
    if (!root) drawPosted(null);
    pagePosted();
    drawTimer();
    drawStatus();
  }

  // -- start ------------------------------------------------------------------------------

  if (!/^[^#+]+$/.test(base)) {
    $("help").hidden = false;
    return;
  }
  sb.layout = VIEWS.baccarat.layout;  // for a test of the dragon tail
  document.title = `Scoreboard ${base.split("/").pop()}`;
  render();
  setInterval(drawTimer, 250);
  setInterval(drawStatus, 250);  // a silent table marked stale within a quarter second
  sb.turnPosted = () => { postedPage++; showPostedPage(); };  // (a test turns it at will)
  setInterval(sb.turnPosted, POSTED_PAGE_SECONDS * 1000);
  addEventListener("resize", render);  // a view lays itself out for the window (banked.js's fit)
  const subscriptions = sb.topics.map((topic) => ({ topic, qos: 1 }));
  sb.client = TablectlPage.connect(link, "scoreboard", subscriptions, onMessage, onLink);
})();
