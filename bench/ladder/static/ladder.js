// The ladder's pages: the standings (/), a player (/bots/NAME) and a match (/matches/ID), drawn
// from the server's JSON. Everything the server sends is drawn as text (textContent), never
// parsed as HTML: a bot's name stays a name.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, className = "", ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

function link(href, text) {
  const a = el("a", "", text);
  a.href = href;
  return a;
}

function table(head, rows) {
  const cells = (tag, values) => el("tr", "", ...values.map((v) => (v instanceof Node ? el(tag, "", v) : el(tag, typeof v === "number" ? "number" : "", String(v)))));
  return el("div", "scroll", el("table", "", el("thead", "", cells("th", head)), el("tbody", "", ...rows.map((r) => cells("td", r)))));
}

const fixed = (x, digits = 2) => (x === null || x === undefined ? "-" : x.toFixed(digits));
const interval = (e) => (e.n > 1 ? `${fixed(e.mean)} ± ${fixed((e.high - e.low) / 2)}` : fixed(e.mean));
const botLink = (name) => link(`/bots/${encodeURIComponent(name)}`, name);

async function get(path) {
  const response = await fetch(path);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

async function standings(page) {
  const data = await get("/api/standings");
  page.append(el("h2", "", "Standings"), el("p", "note", `${data.deals} deals, each played in every seat rotation. Rated with OpenSkill over every deal, its players ranked by their points over its rotations; points per hand with 95% intervals (lower is better).`));
  page.append(table(["rank", "player", "rating", "mu", "sigma", "deals", "points/hand", "stand-in deals"],
    data.players.map((p, i) => [i + 1, botLink(p.name), fixed(p.rating.ordinal), fixed(p.rating.mu), fixed(p.rating.sigma), p.points_per_hand.n, interval(p.points_per_hand), p.stand_in_deals])));
  page.append(el("h2", "", "Pairs"), el("p", "note", "A's points per hand minus B's on the deals they played at the same table (negative: A took fewer)."));
  page.append(table(["A", "B", "difference", "deals"], data.pairs.map((p) => [botLink(p.a), botLink(p.b), interval(p.difference), p.difference.n])));
}

function plot(history) {
  const NS = "http://www.w3.org/2000/svg";
  const [W, H, M] = [600, 240, 36];
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "plot");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "rating after each match");
  const values = history.map((h) => h.ordinal);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const span = high - low || 1;
  const x = (i) => M + (i * (W - 2 * M)) / Math.max(1, history.length - 1);
  const y = (v) => H - M - ((v - low) * (H - 2 * M)) / span;
  const shape = (tag, attributes, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
  };
  for (const v of [low, high]) {
    shape("line", { x1: M, x2: W - M, y1: y(v), y2: y(v) });
    shape("text", { x: 2, y: y(v) + 4 }, fixed(v, 1));
  }
  shape("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") });
  shape("text", { x: M, y: H - 8 }, `match ${history[0].match}`);
  shape("text", { x: W - M - 60, y: H - 8 }, `match ${history[history.length - 1].match}`);
  return svg;
}

async function bot(page, name) {
  const data = await get(`/api/bots/${encodeURIComponent(name)}`);
  page.append(el("h2", "", data.name), el("p", "note", `Rating ${fixed(data.rating.ordinal)} (mu ${fixed(data.rating.mu)}, sigma ${fixed(data.rating.sigma)}); ${interval(data.points_per_hand)} points per hand over ${data.points_per_hand.n} deals; a stand-in played its seat in ${data.stand_in_deals} of them.`));
  page.append(el("h3", "", "Rating after each match"), plot(data.history));
  page.append(el("h3", "", "Against each player"), table(["other", "difference", "deals"], data.pairs.map((p) => [botLink(p.other), interval(p.difference), p.difference.n])));
  page.append(el("h3", "", "Matches"), table(["match", "rating after it"], data.history.slice().reverse().map((h) => [link(`/matches/${h.match}`, String(h.match)), fixed(h.ordinal)])));
}

async function match(page, id) {
  const data = await get(`/api/matches/${id}`);
  page.append(el("h2", "", `Match ${data.id}`), el("p", "note", `${data.status}; ${data.deals.length} of ${data.deals_planned} deals; began ${data.started}; seed ${data.seed}. Players: `, ...data.entries.flatMap((n, i) => [i ? ", " : "", botLink(n)])));
  page.append(el("p", "note", "Step through any of its games below, or take ", link(`/matches/${data.id}/replay.jsonl`, "the match's games as a replay file"), " (hearts-web --replay FILE)."));
  const replay = viewer(data);
  const rows = [];
  for (const deal of data.deals) {
    for (const game of deal.games) {
      const view = el("button", "", "view");
      view.addEventListener("click", () => replay.open(deal.deal * data.entries.length + game.rotation));
      rows.push([deal.deal, deal.direction, game.rotation, game.seats.map((s, i) => `${s}: ${game.scores[i]}`).join(", "), deal.stand_in.join(", ") || "-", view]);
    }
  }
  page.append(table(["deal", "pass", "rotation", "points by seat", "stand-in for", "replay"], rows));
  if (rows.length) page.append(replay.section);
}

const cardName = (id) => (id === null || id < 0 ? "" : "23456789TJQKA"[id % 13] + "CDSH"[Math.floor(id / 13)]);

// Step through one game of the match, card by card, every hand face up.
function viewer(data) {
  const players = data.entries.length;
  const games = el("select");
  for (const deal of data.deals) {
    for (const game of deal.games) games.append(new Option(`deal ${deal.deal}, rotation ${game.rotation}`, deal.deal * players + game.rotation));
  }
  const label = el("span", "note");
  const board = el("div");
  const state = { step: 0, steps: 1 };
  const show = async (step) => {
    const view = await get(`/api/matches/${data.id}/games/${games.value}/steps/${step}`);
    Object.assign(state, { step: view.step, steps: view.steps });
    label.textContent = ` step ${view.step} of ${view.steps - 1}: ${view.played ? `seat ${view.played.seat} played ${view.played.card}` : "the deal"} (${view.phase}, ${view.tricks_played} tricks played)`;
    board.replaceChildren(table(["seat", "player", "hand", "passing", "on the trick", "points this hand", "total"],
      view.seats.map((seat) => [seat.seat, seat.name.replace(/^seat \d+: /, ""), seat.hand_names.join(" "), seat.picked_names.join(" "), cardName(seat.trick_card), seat.points, seat.score])));
  };
  const button = (text, step) => {
    const b = el("button", "", text);
    b.addEventListener("click", () => show(Math.max(0, Math.min(state.steps - 1, step()))).catch((e) => ($("status").textContent = e.message)));
    return b;
  };
  games.addEventListener("change", () => show(0).catch((e) => ($("status").textContent = e.message)));
  const section = el("section", "", el("h3", "", "Replay"),
    el("p", "", games, " ", button("|<", () => 0), button("< back", () => state.step - 1), button("forward >", () => state.step + 1), button(">|", () => state.steps - 1), label), board);
  if (games.options.length) show(0).catch((e) => ($("status").textContent = e.message));
  const open = (game) => {
    games.value = game;
    section.scrollIntoView();
    show(0).catch((e) => ($("status").textContent = e.message));
  };
  return { section, open };
}

async function start() {
  const page = $("page");
  const path = window.location.pathname;
  try {
    if (path.startsWith("/bots/")) await bot(page, decodeURIComponent(path.slice("/bots/".length)));
    else if (path.startsWith("/matches/")) await match(page, Number(path.slice("/matches/".length)));
    else await standings(page);
  } catch (error) {
    $("status").textContent = error.message;
  }
}

window.addEventListener("DOMContentLoaded", start);
