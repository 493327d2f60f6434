/* What the tablectl pages share (docs/scoreboard.md, docs/floor.md): each game's name as a
 * person reads it, and the page's MQTT client set up from the page's own address.
 *
 * One classic script, loaded after mqtt-ws.js, that defines `TablectlPage` on `window`:
 *
 *   const link = TablectlPage.link();     // broker, keepalive, record=1, credentials
 *   const client = TablectlPage.connect(link, "scoreboard", subscriptions, onMessage, onState);
 *   TablectlPage.gameName("omaha-hi-lo")  // "Omaha hi-lo"; an unknown id as it is
 *   TablectlPage.tsMillis(state.ts)       // a payload's `ts` in ms since the epoch
 */
(function (global) {
  "use strict";

  const GAMES = {
    "ez-baccarat-panda8": "EZ Baccarat Panda 8",
    "three-card-poker-6cb": "Three Card Poker 6 Card Bonus",
    "fortune-pai-gow": "Fortune Pai Gow Poker",
    "ultimate-texas-holdem": "Ultimate Texas Hold'em",
    "pure-21.5-blackjack": "Pure 21.5 Blackjack",
    "pure-spanish-21.5": "Pure Spanish 21.5",
    "texas-holdem": "Texas Hold'em",
    "omaha": "Omaha",
    "omaha-hi-lo": "Omaha hi-lo",
    "crazy-pineapple-hi-lo": "Crazy Pineapple hi-lo",
    "seven-card-stud": "Seven Card Stud",
    "seven-card-stud-hi-lo": "Seven Card Stud hi-lo",
    "razz": "Razz",
    "five-card-stud": "Five Card Stud",
    "option-alley": "Option Alley",
    "five-card-draw": "Five Card Draw",
    "five-card-draw-hi-lo": "Five Card Draw hi-lo",
    "lowball": "Lowball",
    "dealers-choice": "Dealer's Choice",
    "chinese-poker": "Chinese Poker",
  };

  /** A game id as a person reads it (the README's names); an id this page does not know, as is. */
  function gameName(id) {
    return Object.prototype.hasOwnProperty.call(GAMES, id) ? GAMES[id] : id;
  }

  /** A tablectl timestamp ("2026-11-27T20:00:02.000000Z") in milliseconds since the epoch;
   * NaN for anything else. Its microseconds are cut to the milliseconds JavaScript reads. */
  function tsMillis(ts) {
    return typeof ts === "string" ? Date.parse(ts.replace(/(\.\d{3})\d*Z$/, "$1Z")) : NaN;
  }

  /** What the page's address says of its link: `broker` (else the WebSocket listener that served
   * the page, at /mqtt), `keepalive` (1 to 600 s, 30 when left out), `record=1` (keep every
   * message, for a test), and the user name and password, from the fragment (`#user=..&pass=..`,
   * never sent to a web server) or else the query. `params` is the query, for the page's own. */
  function link() {
    const params = new URLSearchParams(location.search);
    const secret = new URLSearchParams(location.hash.slice(1));
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return {
      params,
      brokerUrl: params.get("broker") || `${scheme}://${location.host}/mqtt`,
      keepAll: params.get("record") === "1",
      keepalive: Math.min(Math.max(Number(params.get("keepalive")) || 30, 1), 600),
      username: secret.get("user") || params.get("user") || undefined,
      password: secret.get("pass") || params.get("pass") || undefined,
    };
  }

  /** The page's MQTT client (a random client id after `name`), started; new credentials in the
   * fragment reload the page, since a fragment change alone reloads nothing. */
  function connect(pageLink, name, subscriptions, onMessage, onState) {
    const rand = new Uint32Array(1);
    crypto.getRandomValues(rand);
    const client = new global.MqttWsClient({
      url: pageLink.brokerUrl,
      clientId: `${name}-${rand[0].toString(36)}`,
      username: pageLink.username,
      password: pageLink.password,
      keepalive: pageLink.keepalive,
      subscriptions,
      onMessage,
      onState,
    });
    client.start();
    global.addEventListener("hashchange", () => location.reload());
    return client;
  }

  global.TablectlPage = { GAMES, gameName, tsMillis, link, connect };
})(window);
