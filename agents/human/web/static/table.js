// The browser table: draws the server's views (hearts_env.render.describe, as JSON) and sends
// the person's moves. No build step, no library: plain DOM. Everything the server sends is drawn
// as text (el() sets textContent), never parsed as HTML: a name in a replay stays a name.
// session.js adds the duplicate sessions on the same table.
"use strict";

const SUITS = { C: "♣", D: "♦", S: "♠", H: "♥" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", S: "spades", H: "hearts" };
const RANK_NAMES = { T: "10", J: "Jack", Q: "Queen", K: "King", A: "Ace" };
const KEYS = "abcdefghijklmnopqrstuvwxyz"; // the key of each card of the hand, left to right
const WAIT_NOTICE_MS = 1000; // a request pending longer than this says what it waits for
// How long a completed trick stays on the table (?trick_pause=ms; any key or click ends it sooner).
const TRICK_PAUSE_MS = Number(new URLSearchParams(window.location.search).get("trick_pause") ?? 1200);
const $ = (id) => document.getElementById(id);

// An element with a class and children (strings become text nodes).
function el(tag, className = "", ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

function row(...cells) {
  return el("tr", "", ...cells.map((cell) => (cell instanceof Node ? cell : el("td", "", String(cell)))));
}

let tab = "play";
let game = null;        // the view of the game (or the session's deal) on the table
let session = null;     // the summary of the session being played, or null for a plain game
let plainGame = null;   // the last view of the plain game, kept while another tab shows
let selected = [];      // cards picked to pass
let replay = null;      // { id, game, view }
let busy = false;       // a move is on its way: keys and clicks wait for its answer
let lastRequest = null; // the settings of the last game started (Play again)
let heldTrick = null;   // a completed trick on show: { timer }
const waits = new Map(); // what the requests pending longer than WAIT_NOTICE_MS wait for

function setStatus(text) {
  $("status").textContent = text;
}

// A failed request, or a move the page refuses, said in the alert region (read out at once).
function alertPerson(text) {
  $("alert").textContent = text;
}

function showWaits() {
  $("waiting").textContent = [...waits.values()].pop() || "";
}

// Every request goes through here: a refusal, or a server out of reach, is said in #alert; one
// that takes longer than a second says what it waits for (the agents compile on a first run).
async function api(method, url, body, { raw = false, waiting = "Waiting for the server…" } = {}) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = raw ? body : JSON.stringify(body);
    options.headers["Content-Type"] = raw ? "application/x-ndjson" : "application/json";
  }
  const token = {};
  const timer = setTimeout(() => { waits.set(token, waiting); showWaits(); }, WAIT_NOTICE_MS);
  let response, data;
  try {
    response = await fetch(url, options);
    data = await response.json().catch(() => ({}));
  } catch (error) {
    alertPerson("The server cannot be reached (is hearts-web still running?): nothing was done. Try again once it is.");
    throw error;
  } finally {
    clearTimeout(timer);
    waits.delete(token);
    showWaits();
  }
  if (!response.ok) {
    alertPerson(data.error || `The server answered ${response.status} ${response.statusText}.`);
    throw new Error(data.error);
  }
  if (method !== "GET") alertPerson(""); // the person's action went through: an older alert is stale
  return data;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function cardWords(name) {
  return `${RANK_NAMES[name[0]] || name[0]} of ${SUIT_NAMES[name[1]]}`;
}

// A card; in the person's hand a button (reached with Tab, named for a screen reader).
function cardEl(name, classes = "", tag = "div") {
  const rank = name[0] === "T" ? "10" : name[0];
  const card = el(tag, `card ${"DH".includes(name[1]) ? "red" : ""} ${classes}`, rank, el("span", "suit", SUITS[name[1]] || ""));
  card.dataset.card = name;
  card.title = cardWords(name);
  card.setAttribute("aria-label", cardWords(name));
  if (tag === "div") card.setAttribute("role", "img");
  else card.type = "button";
  return card;
}

function backEl() {
  return el("div", "card back");
}

// A row of cards that fans to fit its width (table.css reads --n).
function fan(className, cards) {
  const line = el("div", `fan ${className}`, ...cards);
  line.style.setProperty("--n", String(cards.length));
  return line;
}

// ---------------------------------------------------------------------------------------------
// The table: a grid with the viewer at the bottom, the next seat clockwise at the left, the last
// at the right and the others along the top, left to right; the trick in the middle, each card
// on the side of the seat that played it.

function placeOf(relative, players) {
  if (relative === 0) return "bottom";
  if (relative === 1) return "left";
  return relative === players - 1 ? "right" : "top";
}

// A session's deal (deal: true) is one hand of many: it ends "deal over" and crowns no winner.
function drawTable(container, view, mine, { deal = false, note = "" } = {}) {
  const P = view.num_players;
  const phase = view.phase === "pass" ? `passing ${view.pass_direction}` :
    view.phase === "play" ? `trick ${view.tricks_played + 1} of ${view.hand_size} · hearts ${view.hearts_broken ? "broken" : "not broken"}` :
    deal ? "deal over" : "game over";
  const pot = view.decks === 2 ? ` · kitty ${view.kitty} face down · pot ${view.pot_names.join(" ") || "empty"}` : "";
  const target = view.target_score ? `game to ${view.target_score}` : "one-hand game";
  const seats = { top: el("div", "seats-top"), left: el("div", "seats-left"), right: el("div", "seats-right"), bottom: el("div", "seats-bottom") };
  const slots = { top: el("div", "slots-top"), left: el("div", "slots-left"), right: el("div", "slots-right"), bottom: el("div", "slots-bottom") };
  const relative = (seat) => (seat.seat - view.viewer + P) % P;
  for (const seat of [...view.seats].sort((a, b) => relative(a) - relative(b))) {
    const place = placeOf(relative(seat), P);
    seats[place].appendChild(seatBox(view, seat, seat.seat === mine, !deal));
    const slot = trickSlot(view, seat);
    if (slot) slots[place].appendChild(slot);
  }
  const trick = el("div", "trick-area", slots.top, slots.left, slots.right, slots.bottom);
  container.classList.toggle("open", mine === undefined);
  container.replaceChildren(el("div", "info", `Hand ${view.hand_number} · ${phase} · ${target}${pot}${note}`),
    seats.top, seats.left, trick, seats.right, seats.bottom);
}

// A seat: its name, its score, the points it took this hand (apart: a moon makes them differ),
// and its cards (the person's own hand is drawn apart, below).
function seatBox(view, seat, mine, crown) {
  const box = el("div", `seat${seat.to_play ? " to-play" : ""}${crown && seat.winner ? " winner" : ""}`);
  box.id = `seat-${seat.seat}`;
  const held = seat.face_up ? "" : ` · ${seat.held} cards`;
  const pts = el("div", "pts", `score ${seat.score} · took ${seat.points}`, el("span", "long", " this hand"), held);
  box.append(el("div", "name", seat.name), pts);
  if (!mine) {
    const cards = seat.face_up ? seat.hand_names.map((name) => cardEl(name)) : Array.from({ length: seat.held }, backEl);
    box.appendChild(fan(seat.face_up ? "open" : "backs", cards));
  }
  return box;
}

// The seat's card in the trick, or while passing the cards it picked and where they go.
function trickSlot(view, seat) {
  let cards, label = "";
  if (seat.trick_card !== null) {
    cards = [cardEl(view.trick.find((t) => t.seat === seat.seat).name)];
    if (seat.seat === view.leader) label = "led";
  } else if (view.phase === "pass" && seat.picks) {
    cards = seat.picked_names.length ? seat.picked_names.map((name) => cardEl(name)) : Array.from({ length: seat.picks }, backEl);
    label = `→ seat ${(seat.seat + view.pass_offset) % view.num_players}`;
  } else {
    return null;
  }
  const slot = el("div", `slot${seat.winning ? " winning" : ""}`, el("div", "pile", ...cards));
  if (label) slot.appendChild(el("div", "who", label));
  return slot;
}

// ---------------------------------------------------------------------------------------------
// Playing

function moveUrl(kind) {
  return session ? `/api/sessions/${session.id}/${kind}` : `/api/games/${game.id}/${kind}`;
}

// Send a move (one at a time) and draw the answer.
async function send(kind, body) {
  if (busy) return;
  busy = true;
  try {
    const answer = await api("POST", moveUrl(kind), body, { waiting: "The agents are playing (compiling on first run)…" });
    if (session) showSession(answer);
    else showGame(answer);
  } finally {
    busy = false;
  }
}

// Whose turn it is and at which trick, as a person says it (the status is read out).
function turnWords(view) {
  const waiting = view.waiting_for;
  if (waiting === "pass") return `Hand ${view.hand_number}: pick ${plural(view.pass_count - view.seats[view.seat].picks, "card")} to pass ${view.pass_direction}`;
  if (waiting === "play") return `Trick ${view.tricks_played + 1} of ${view.hand_size}: your turn${view.trick.length ? "" : " to lead"}`;
  if (waiting === "next hand") return `Hand ${view.hand_number - 1} over`;
  return session ? `Deal ${session.deal + 1} over` : "Game over";
}

// The last trick changed since the view before (one trick completes between two of the person's turns).
function trickCompleted(before, view) {
  const last = (v) => v.seats.map((s) => s.last_trick_card).join();
  return before && before.id === view.id && view.seats.some((s) => s.last_trick_card !== null) && last(before) !== last(view);
}

// The view with its last completed trick as the trick on the table.
function withLastTrick(view) {
  const seats = view.seats.map((s) => ({ ...s, trick_card: s.last_trick_card, winning: s.took_last_trick, to_play: false }));
  const trick = seats.filter((s) => s.trick_card !== null).map((s) => ({ seat: s.seat, card: s.trick_card, name: cardName(s.trick_card) }));
  return { ...view, seats, trick, leader: -1, phase: "play", tricks_played: Math.max(0, view.tricks_played - 1) };
}

function showGame(view) {
  const before = game;
  game = view;
  if (!session) plainGame = view;
  selected = [];
  releaseTrick(false);
  const deal = Boolean(session);
  let took = "";
  if (trickCompleted(before, view)) {
    // The trick just completed stays on the table a moment: the others' cards were played meanwhile.
    const taker = view.last_trick_winner >= 0 ? view.seats[view.last_trick_winner].name : "no one (to the pot)";
    took = `${taker} took the trick. `;
    drawTable($("table"), withLastTrick(view), view.seat, { deal, note: ` · ${taker} took it` });
    heldTrick = { timer: setTimeout(() => releaseTrick(), TRICK_PAUSE_MS) };
  } else {
    drawTable($("table"), view, view.seat, { deal });
  }
  drawHand(view);
  const waiting = view.waiting_for;
  const receiver = view.seats[(view.seat + view.pass_offset) % view.num_players].name;
  const need = view.pass_count - view.seats[view.seat].picks;
  $("prompt").textContent = waiting === "pass" ? `Pick ${plural(need, "card")} to pass ${view.pass_direction} to ${receiver}.` :
    waiting === "play" ? "Your turn: play a highlighted card." : waiting === "next hand" ? "The hand is over." :
    session ? `Deal ${session.deal + 1} is over.` : "The game is over.";
  $("pass-button").hidden = waiting !== "pass";
  $("pass-button").disabled = true;
  $("hint-box").hidden = Boolean(session); // a session measures the person alone
  drawLastTrick(view);
  drawScores(view);
  drawResult(view);
  setStatus(took + turnWords(view));
}

// The table after a completed trick's pause (redraw: false when a new view is drawn anyway).
function releaseTrick(redraw = true) {
  if (!heldTrick) return;
  clearTimeout(heldTrick.timer);
  heldTrick = null;
  if (redraw) drawTable($("table"), game, game.seat, { deal: Boolean(session) });
}

// Move the focus to the table's prompt (after Continue, a new game, a new deal), so Enter and the
// keys act on the deal shown, not on the control that brought it.
function focusTable() {
  $("prompt").focus();
}

// The person's hand: one row of buttons, each card with its key; legal cards raised.
function drawHand(view) {
  const waiting = view.waiting_for;
  const hand = $("hand");
  const focused = [...hand.children].indexOf(document.activeElement); // kept on the same place after a move
  const cards = view.seats[view.seat].hand_names.map((name, i) => {
    const card = cardEl(name, "", "button");
    if (i < KEYS.length) {
      card.dataset.key = KEYS[i];
      card.setAttribute("aria-keyshortcuts", KEYS[i]);
      card.appendChild(el("span", "key", KEYS[i]));
    }
    if (waiting === "play") {
      const legal = view.legal_names.includes(name);
      card.classList.add(legal ? "legal" : "illegal");
      if (!legal) card.setAttribute("aria-disabled", "true");
      card.addEventListener("click", () => playCard(name));
    } else if (waiting === "pass") {
      card.classList.add("legal");
      card.setAttribute("aria-pressed", "false");
      card.addEventListener("click", () => togglePick(card));
    } else {
      card.setAttribute("aria-disabled", "true");
    }
    return card;
  });
  hand.replaceChildren(...cards);
  hand.style.setProperty("--n", String(cards.length));
  if (focused >= 0 && cards.length) cards[Math.min(focused, cards.length - 1)].focus();
}

// A card pressed in play: a legal one is played; of an illegal one the page says why not.
function playCard(name) {
  if (game.waiting_for !== "play") return;
  if (!game.legal_names.includes(name)) {
    const why = (game.illegal[name] || "it is not legal now").replace(/\(([CDSH])\)/, (_, suit) => `(${SUIT_NAMES[suit]})`);
    alertPerson(`You cannot play the ${cardWords(name)}: ${why}.`);
    return;
  }
  send("play", { card: name, turn: game.turn }).catch(() => {});
}

function togglePick(card) {
  const name = card.dataset.card;
  const need = game.pass_count - game.seats[game.seat].picks;
  if (selected.includes(name)) {
    selected.splice(selected.indexOf(name), 1);
    card.classList.remove("selected");
  } else if (selected.length < need) {
    selected.push(name);
    card.classList.add("selected");
  }
  card.setAttribute("aria-pressed", String(selected.includes(name)));
  $("pass-button").disabled = selected.length !== need;
}

function drawLastTrick(view) {
  const box = $("last-trick");
  box.replaceChildren();
  for (const seat of view.seats) {
    if (seat.last_trick_card === null) continue;
    const took = seat.took_last_trick ? " took" : "";
    box.appendChild(el("div", `slot${took}`, cardEl(cardName(seat.last_trick_card)), `seat ${seat.seat}${took}`));
  }
  if (!box.children.length) box.textContent = "none yet";
}

function cardName(id) {
  return "23456789TJQKA"[id % 13] + "CDSH"[Math.floor(id / 13)];
}

function drawScores(view) {
  $("scores").replaceChildren(row("", "score", "took this hand"), ...view.seats.map((s) => row(s.name, s.score, s.points)));
}

// The score of a hand that ended (a session's deal: drawSessionResult).
function drawResult(view) {
  if (session) return drawSessionResult(view);
  const banner = $("hand-result");
  const show = view.waiting_for === "next hand" || view.waiting_for === "game over";
  banner.hidden = !show;
  $("play-again").hidden = !view.game_over;
  if (!show) return;
  const winners = view.seats.filter((s) => s.winner).map((s) => s.name).join(" and ");
  $("hand-result-title").textContent = view.game_over ? `Game over: ${winners} won` : `Hand ${view.hand_number - 1} scored`;
  $("deal-result").hidden = true;
  drawHandPoints(view);
  $("next-hand").textContent = "Next hand";
  $("next-hand").hidden = view.game_over;
}

function drawHandPoints(view) {
  $("hand-result-scores").replaceChildren(row("", "the hand", "score"), ...view.seats.map((s) =>
    row(s.name, el("td", "hand-points", `+${s.last_hand_points}`), s.score)));
}

async function hint() {
  const out = $("hint-output");
  out.textContent = "thinking…";
  const agent = $("hint-agent").value;
  const result = await api("POST", `/api/games/${game.id}/hint`, { agent, turn: game.turn },
    { waiting: `Asking ${agent} (compiling on first run)…` });
  const scores = result.probabilities || result.values || {};
  const lowerIsBetter = !result.probabilities && result.values;
  const rows = Object.entries(scores).sort((a, b) => (lowerIsBetter ? a[1] - b[1] : b[1] - a[1]));
  const what = result.probabilities ? "probability" : result.values ? "mean hand points (lower is better)" : "";
  const both = result.probabilities && result.values;
  const said = el("p", "", `${result.agent} would play `, el("b", "", result.card));
  said.id = "hint-card";
  out.replaceChildren(said);
  if (rows.length) {
    out.appendChild(el("table", "", row("card", what, ...(both ? ["points"] : [])),
      ...rows.map(([card, v]) => row(card, v.toFixed(3), ...(both ? [card in result.values ? result.values[card].toFixed(2) : ""] : [])))));
  }
  for (const card of document.querySelectorAll("#hand .card")) card.classList.toggle("suggested", card.dataset.card === result.card);
}

// The rules and the seating of the settings form (shared by games and sessions).
function settings() {
  const num = (id) => Number($(id).value);
  const rules = {
    num_players: num("num-players"), decks: num("decks"), pass_count: num("pass-count"), moon: $("moon").value,
    jack_of_diamonds: $("jack-of-diamonds").checked,
  };
  const request = { seat: num("seat"), opponents: $("opponents").value.trim().split(/\s+/), rules };
  if ($("game-seed").value !== "") request.seed = num("game-seed");
  return request;
}

// A new game from the settings form; the game in play, if any, is left only once the new one is
// dealt (the server drops it then: "replaces"), and only if the person agrees to leave it.
async function newGame(request = null) {
  if (!request) {
    if (plainGame && plainGame.waiting_for !== "game over" && !window.confirm("Leave the game in play and start a new one?")) return;
    request = settings();
    request.rules.target_score = Number($("target-score").value);
  }
  if (plainGame) request.replaces = plainGame.id;
  setStatus("dealing…");
  const view = await api("POST", "/api/games", request, { waiting: "Preparing the agents (compiling on first run)…" });
  delete request.replaces;
  lastRequest = request;
  session = null;
  game = null; // a new game: no trick of the old one to show
  $("settings-box").open = false;
  $("play").hidden = false;
  $("hint-output").textContent = "";
  $("session-bar").hidden = true;
  showGame(view);
  focusTable();
}

// Play again: the last game's settings, a fresh deal.
function playAgain() {
  const request = { ...lastRequest };
  delete request.seed;
  return newGame(request);
}

// Keys: the letter on a card plays it (or picks it to pass); Enter passes, or goes on.
function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || $("play").hidden || !game) return;
  if (event.target.closest("input, select, textarea")) return; // typing
  releaseTrick(); // a key ends a completed trick's pause
  if (event.key === "Enter" && event.target.closest("button, a, summary")) return; // the focused control's own Enter
  if (event.key === "Enter") {
    const next = $("next-hand");
    if (!$("hand-result").hidden && !next.hidden) next.click();
    else if (!$("pass-button").hidden && !$("pass-button").disabled) $("pass-button").click();
    else return;
  } else if (event.key.length === 1 && KEYS.includes(event.key)) {
    const card = document.querySelector(`#hand .card[data-key="${event.key}"]`);
    if (!card) return;
    card.click();
  } else {
    return;
  }
  event.preventDefault();
}

// ---------------------------------------------------------------------------------------------
// Replays

async function uploadReplay() {
  const file = $("replay-file").files[0];
  if (!file) return;
  setStatus(`checking ${file.name}…`);
  const summary = await api("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, await file.text(), { raw: true });
  addReplay(summary);
  setStatus(`${file.name}: ${summary.games.length} games`);
}

function addReplay(summary) {
  const option = new Option(`${summary.name} (${summary.games.length} games)`, summary.id);
  option.summary = summary;
  $("replay-list").appendChild(option);
  $("replay-list").value = summary.id;
  chooseReplay();
}

function chooseReplay() {
  const option = $("replay-list").selectedOptions[0];
  if (!option) return;
  const games = $("replay-game");
  games.replaceChildren();
  option.summary.games.forEach((g, i) =>
    games.appendChild(new Option(`deal ${g.deal}, rotation ${g.rotation}: ${g.seats.join(", ")} → ${g.scores.join(" ")}`, i)));
  replay = { id: option.value, game: 0, view: null };
  showStep(0);
}

async function showStep(step) {
  replay.wanted = step; // clicks step on from here before the answer comes
  const view = await api("GET", `/api/replays/${replay.id}/games/${replay.game}/steps/${step}`);
  if (replay.wanted !== step) return; // a later step was asked for meanwhile
  replay.view = view;
  drawTable($("replay-table"), view);
  $("replay-step").textContent = `step ${view.step} of ${view.steps - 1}`;
  $("replay-played").textContent = view.played ? `seat ${view.played.seat} played ${view.played.card}` : "the deal";
  const hands = $("replay-hand");
  if (hands.options.length !== view.hand_starts.length) {
    hands.replaceChildren();
    view.hand_starts.forEach((start, i) => hands.appendChild(new Option(`${i + 1}`, start)));
  }
  let hand = 0;
  view.hand_starts.forEach((start, i) => { if (step >= start) hand = i; });
  hands.selectedIndex = hand;
}

function stepBy(delta) {
  if (!replay || !replay.view) return;
  const step = Math.max(0, Math.min(replay.view.steps - 1, replay.wanted + delta));
  showStep(step);
}

// ---------------------------------------------------------------------------------------------

// The tabs: Play (a game), Measure yourself (sessions: session.js), Replays.
function showTab(name) {
  tab = name;
  for (const id of ["setup", "sessions", "play", "session-results", "side-by-side", "replay-panel"]) $(id).hidden = true;
  for (const [button, shows] of [["show-play", "play"], ["show-duplicate", "duplicate"], ["show-replay", "replay"]]) {
    $(button).classList.toggle("active", name === shows);
  }
  $("setup").className = `panel ${name === "duplicate" ? "session" : "game"}`;
  if (name === "play") {
    $("setup").hidden = false;
    session = null;
    $("session-bar").hidden = true;
    if (plainGame) {
      $("play").hidden = false;
      showGame(plainGame);
    }
  } else if (name === "duplicate") {
    showSessionsTab();
  } else {
    $("replay-panel").hidden = false;
  }
}

async function start() {
  $("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    (tab === "duplicate" ? newSession() : newGame()).catch(() => {});
  });
  $("pass-button").addEventListener("click", () => send("pass", { cards: selected, turn: game.turn }).catch(() => {}));
  $("next-hand").addEventListener("click", () => (session ? nextDeal() : send("next", { turn: game.turn })).catch(() => {}));
  $("play-again").addEventListener("click", () => playAgain().catch(() => {}));
  document.addEventListener("click", () => releaseTrick(), true); // a click ends a completed trick's pause
  $("hint-button").addEventListener("click", () => hint().catch(() => { $("hint-output").textContent = ""; }));
  $("show-play").addEventListener("click", () => showTab("play"));
  $("show-duplicate").addEventListener("click", () => showTab("duplicate"));
  $("show-replay").addEventListener("click", () => showTab("replay"));
  $("replay-file").addEventListener("change", () => uploadReplay().catch(() => {}));
  $("replay-list").addEventListener("change", chooseReplay);
  $("replay-game").addEventListener("change", () => { replay.game = Number($("replay-game").value); showStep(0); });
  $("replay-hand").addEventListener("change", () => showStep(Number($("replay-hand").value)));
  $("replay-prev").addEventListener("click", () => stepBy(-1));
  $("replay-next").addEventListener("click", () => stepBy(1));
  $("replay-first").addEventListener("click", () => stepBy(-1e9));
  $("replay-last").addEventListener("click", () => stepBy(1e9));
  document.addEventListener("keydown", onKey);
  startSessions();
  showTab("play");
  const options = await api("GET", "/api/options");
  for (const name of options.agents) $("agent-names").appendChild(new Option(name));
  for (const summary of options.replays) addReplay(summary);
  $("deals").max = options.max_deals;
  setStatus("Pick your opponents and start a game.");
}

window.addEventListener("DOMContentLoaded", () => start().catch(() => {}));
