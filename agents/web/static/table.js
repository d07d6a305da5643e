// The browser table: draws the server's views (hearts_env.render.describe, as JSON) and sends
// the person's moves. No build step, no library: plain DOM. Everything the server sends is drawn
// as text (el() sets textContent), never parsed as HTML: a name in a replay stays a name.
"use strict";

const SUITS = { C: "♣", D: "♦", S: "♠", H: "♥" };
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
let game = null;        // the current game's view
let selected = [];      // cards picked to pass
let replay = null;      // { id, game, view }

function setStatus(text, error = false) {
  const status = $("status");
  status.textContent = text;
  status.className = error ? "error" : "";
}

async function api(method, url, body, raw = false) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = raw ? body : JSON.stringify(body);
    options.headers["Content-Type"] = raw ? "application/x-ndjson" : "application/json";
  }
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) {
    setStatus(data.error || response.statusText, true);
    throw new Error(data.error);
  }
  return data;
}

function cardEl(name, classes = "") {
  const rank = name[0] === "T" ? "10" : name[0];
  const card = el("div", `card ${"DH".includes(name[1]) ? "red" : ""} ${classes}`, rank, el("span", "suit", SUITS[name[1]] || ""));
  card.dataset.card = name;
  card.title = name;
  return card;
}

function backEl() {
  return el("div", "card back");
}

// Where a seat sits, in % of the table: the viewer at the bottom; up to four players evenly
// around an ellipse, more on its upper half (as the image renderer lays them out).
function seatPosition(relative, players) {
  if (relative === 0) return [50, 83];
  const angle = players <= 4 ? (2 * Math.PI * relative) / players : Math.PI / 2 + ((relative - 1) * Math.PI) / (players - 2);
  const mid = players <= 4 ? 46 : 62;
  const ry = players <= 4 ? 34 : 50;
  return [50 - 37 * Math.sin(angle), mid + ry * Math.cos(angle)];
}

function drawTable(container, view, mine) {
  container.replaceChildren();
  const P = view.num_players;
  const info = document.createElement("div");
  info.className = "info";
  const phase = view.phase === "pass" ? `passing ${view.pass_direction}` :
    view.phase === "play" ? `trick ${view.tricks_played + 1} of ${view.hand_size} · hearts ${view.hearts_broken ? "broken" : "not broken"}` : "game over";
  const pot = view.decks === 2 ? ` · kitty ${view.kitty} face down · pot ${view.pot_names.join(" ") || "empty"}` : "";
  info.textContent = `Hand ${view.hand_number} · ${phase} · ${view.target_score ? "game to " + view.target_score : "one-hand game"}${pot}`;
  container.appendChild(info);
  for (const seat of view.seats) {
    const relative = (seat.seat - view.viewer + P) % P;
    const [x, y] = seatPosition(relative, P);
    const box = document.createElement("div");
    box.className = `seat${seat.to_play ? " to-play" : ""}${seat.winner ? " winner" : ""}`;
    box.id = `seat-${seat.seat}`;
    box.style.left = `${x}%`;
    box.style.top = `${y}%`;
    box.appendChild(el("div", "name", seat.name, el("br"), el("span", "pts", `${seat.score} pts · +${seat.points} this hand`)));
    const cards = document.createElement("div");
    const isMine = mine !== undefined && seat.seat === mine;
    cards.className = `cards ${isMine ? "hand" : relative === 0 ? "" : "small"}`;
    if (seat.face_up) {
      for (const name of seat.hand_names) cards.appendChild(cardEl(name));
    } else {
      for (let i = 0; i < Math.min(seat.held, 4); i++) cards.appendChild(backEl());
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = ` ${seat.held} cards`;
      cards.appendChild(count);
    }
    box.appendChild(cards);
    container.appendChild(box);
    const spot = [50 + 0.45 * (x - 50), 47 + 0.45 * (y - 47)];
    if (seat.trick_card !== null) {
      const played = view.trick.find((t) => t.seat === seat.seat);
      placeCard(container, spot, played.name, `${seat.seat === view.leader ? "led" : ""}`, seat.winning);
    } else if (view.phase === "pass" && seat.picks) {
      placeCard(container, spot, seat.picked_names.length ? seat.picked_names.join(" ") : null,
        `${seat.picks} to ${view.seats[(seat.seat + view.pass_offset) % P].name}`, false);
    }
  }
}

function placeCard(container, [x, y], names, label, winning) {
  const el = document.createElement("div");
  el.className = `trick-card${winning ? " winning" : ""}`;
  el.style.left = `${x}%`;
  el.style.top = `${y}%`;
  const row = document.createElement("div");
  row.className = "cards small";
  if (names) for (const name of names.split(" ")) row.appendChild(cardEl(name));
  else row.appendChild(backEl());
  el.appendChild(row);
  const who = document.createElement("div");
  who.className = "who";
  who.textContent = label;
  el.appendChild(who);
  container.appendChild(el);
}

// ---------------------------------------------------------------------------------------------
// Playing

function showGame(view) {
  game = view;
  selected = [];
  drawTable($("table"), view, view.seat);
  const hand = document.querySelectorAll(`#seat-${view.seat} .hand .card`);
  const waiting = view.waiting_for;
  for (const el of hand) {
    if (waiting === "play") {
      if (view.legal_names.includes(el.dataset.card)) {
        el.classList.add("legal");
        el.addEventListener("click", () => play(el.dataset.card));
      } else {
        el.classList.add("illegal");
      }
    } else if (waiting === "pass") {
      el.classList.add("legal");
      el.addEventListener("click", () => togglePick(el));
    }
  }
  const me = view.seats[view.seat];
  const receiver = view.seats[(view.seat + view.pass_offset) % view.num_players].name;
  const need = view.pass_count - me.picks;
  $("prompt").textContent = waiting === "pass" ? `Pick ${need} cards to pass ${view.pass_direction} to ${receiver}.` :
    waiting === "play" ? "Your turn: play a highlighted card." : waiting === "next hand" ? "The hand is over." : "The game is over.";
  $("pass-button").hidden = waiting !== "pass";
  $("pass-button").disabled = true;
  drawLastTrick(view);
  drawScores(view);
  drawResult(view);
  setStatus(waiting === "game over" ? "Game over" : `Turn ${view.turn}`);
}

function togglePick(el) {
  const name = el.dataset.card;
  const need = game.pass_count - game.seats[game.seat].picks;
  if (selected.includes(name)) {
    selected.splice(selected.indexOf(name), 1);
    el.classList.remove("selected");
  } else if (selected.length < need) {
    selected.push(name);
    el.classList.add("selected");
  }
  $("pass-button").disabled = selected.length !== need;
}

function drawLastTrick(view) {
  const box = $("last-trick");
  box.replaceChildren();
  for (const seat of view.seats) {
    if (seat.last_trick_card === null) continue;
    const slot = document.createElement("div");
    slot.className = `slot${seat.took_last_trick ? " took" : ""}`;
    slot.appendChild(cardEl(cardName(seat.last_trick_card)));
    slot.appendChild(document.createTextNode(`seat ${seat.seat}${seat.took_last_trick ? " took" : ""}`));
    box.appendChild(slot);
  }
  if (!box.children.length) box.textContent = "none yet";
}

function cardName(id) {
  return "23456789TJQKA"[id % 13] + "CDSH"[Math.floor(id / 13)];
}

function drawScores(view) {
  $("scores").replaceChildren(row("", "total", "this hand"), ...view.seats.map((s) => row(s.name, s.score, `+${s.points}`)));
}

function drawResult(view) {
  const banner = $("hand-result");
  const show = view.waiting_for === "next hand" || view.waiting_for === "game over";
  banner.hidden = !show;
  if (!show) return;
  const winners = view.seats.filter((s) => s.winner).map((s) => s.name).join(" and ");
  $("hand-result-title").textContent = view.game_over ? `Game over: ${winners} won` : `Hand ${view.hand_number - 1} scored`;
  $("hand-result-scores").replaceChildren(...view.seats.map((s) =>
    row(s.name, el("td", "hand-points", `+${s.last_hand_points}`), `total ${s.score}`)));
  $("next-hand").hidden = view.game_over;
}

async function play(card) {
  showGame(await api("POST", `/api/games/${game.id}/play`, { card, turn: game.turn }));
}

async function passCards() {
  showGame(await api("POST", `/api/games/${game.id}/pass`, { cards: selected, turn: game.turn }));
}

async function nextHand() {
  showGame(await api("POST", `/api/games/${game.id}/next`, { turn: game.turn }));
}

async function hint() {
  const out = $("hint-output");
  out.textContent = "thinking…";
  const result = await api("POST", `/api/games/${game.id}/hint`, { agent: $("hint-agent").value, turn: game.turn });
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
  for (const el of document.querySelectorAll(".hand .card")) el.classList.toggle("suggested", el.dataset.card === result.card);
}

async function newGame(event) {
  event.preventDefault();
  const num = (id) => Number($(id).value);
  const rules = {
    num_players: num("num-players"), decks: num("decks"), pass_count: num("pass-count"), moon: $("moon").value,
    jack_of_diamonds: $("jack-of-diamonds").checked, target_score: num("target-score"),
  };
  const request = { seat: num("seat"), opponents: $("opponents").value.trim().split(/\s+/), rules };
  if ($("game-seed").value !== "") request.seed = num("game-seed");
  setStatus("dealing…");
  if (game) api("DELETE", `/api/games/${game.id}`).catch(() => {});
  const view = await api("POST", "/api/games", request);
  $("play").hidden = false;
  $("hint-output").textContent = "";
  showGame(view);
}

// ---------------------------------------------------------------------------------------------
// Replays

async function uploadReplay() {
  const file = $("replay-file").files[0];
  if (!file) return;
  setStatus(`checking ${file.name}…`);
  const summary = await api("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, await file.text(), true);
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
  const view = await api("GET", `/api/replays/${replay.id}/games/${replay.game}/steps/${step}`);
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
  const step = Math.max(0, Math.min(replay.view.steps - 1, replay.view.step + delta));
  showStep(step);
}

// ---------------------------------------------------------------------------------------------

function showTab(name) {
  $("play-setup").hidden = name !== "play";
  $("play").hidden = name !== "play" || !game;
  $("replay-panel").hidden = name !== "replay";
  $("show-play").classList.toggle("active", name === "play");
  $("show-replay").classList.toggle("active", name === "replay");
}

async function start() {
  $("new-game").addEventListener("submit", (e) => newGame(e).catch(() => {}));
  $("pass-button").addEventListener("click", () => passCards().catch(() => {}));
  $("next-hand").addEventListener("click", () => nextHand().catch(() => {}));
  $("hint-button").addEventListener("click", () => hint().catch(() => { $("hint-output").textContent = ""; }));
  $("show-play").addEventListener("click", () => showTab("play"));
  $("show-replay").addEventListener("click", () => showTab("replay"));
  $("replay-file").addEventListener("change", () => uploadReplay().catch(() => {}));
  $("replay-list").addEventListener("change", chooseReplay);
  $("replay-game").addEventListener("change", () => { replay.game = Number($("replay-game").value); showStep(0); });
  $("replay-hand").addEventListener("change", () => showStep(Number($("replay-hand").value)));
  $("replay-prev").addEventListener("click", () => stepBy(-1));
  $("replay-next").addEventListener("click", () => stepBy(1));
  $("replay-first").addEventListener("click", () => stepBy(-1e9));
  $("replay-last").addEventListener("click", () => stepBy(1e9));
  const options = await api("GET", "/api/options");
  for (const name of options.agents) $("agent-names").appendChild(new Option(name));
  for (const summary of options.replays) addReplay(summary);
  setStatus("Pick your opponents and start a game.");
}

start();
