// Duplicate sessions (agents/human/web/sessions.py): the person plays a session's deals on the table
// of table.js while the server plays each again with an agent in the person's seat. This file
// draws the session: its progress, its results (the figure), a deal's two games side by side,
// and the sessions kept in the server's database. All text is set as text, as in table.js.
"use strict";

let sessionAnswer = null; // the last answer about the session being played: { session, table }
let results = null;       // the summary of the session whose results show
let sideBySide = null;    // { deal, step, steps } of the deal shown side by side (step: the one asked for last)

function signed(x, digits = 2) {
  return x === null ? "—" : `${x > 0 ? "+" : ""}${x.toFixed(digits)}`;
}

function interval(estimate) {
  return estimate.low === null ? "no interval yet" : `${signed(estimate.low)} to ${signed(estimate.high)}`;
}

function startSessions() {
  $("sbs-back").addEventListener("click", () => showResults(results));
  $("sbs-first").addEventListener("click", () => stepSideBySide(-1e9));
  $("sbs-prev").addEventListener("click", () => stepSideBySide(-1));
  $("sbs-next").addEventListener("click", () => stepSideBySide(1));
  $("sbs-last").addEventListener("click", () => stepSideBySide(1e9));
}

function showSessionsTab() {
  $("setup").hidden = false;
  $("sessions").hidden = false;
  if (results) showResults(results);
  else if (sessionAnswer) showSession(sessionAnswer);
  listSessions().catch(() => {});
}

async function newSession() {
  const request = settings();
  request.agent = $("agent").value.trim();
  request.deals = Number($("deals").value);
  request.deal_set = $("deal-set").value;
  setStatus("dealing…");
  showSession(await api("POST", "/api/sessions", request, { waiting: PREPARING }));
  $("settings-box").open = false;
  focusTable();
  listSessions().catch(() => {});
}

const PREPARING = "Preparing the agents (compiling on first run)…";

// Continue (or the results of) a session in the database: its deal on the table, its settings in
// the form, and the focus on the table, so Enter acts on the deal and not on Continue again.
async function openSession(id) {
  const answer = await api("GET", `/api/sessions/${encodeURIComponent(id)}`, undefined, { waiting: PREPARING });
  showSession(answer);
  if (answer.session.state === "finished") return;
  fillSettings(answer.session.settings);
  focusTable();
}

function fillSettings(s) {
  const rules = s.rules;
  $("seat").value = s.seat;
  $("opponents").value = s.opponents.join(" ");
  $("agent").value = s.agent;
  $("deals").value = s.deals;
  $("deal-set").value = s.deal_set;
  $("game-seed").value = s.seed;
  $("num-players").value = rules.num_players;
  $("decks").value = String(rules.decks);
  $("pass-count").value = rules.pass_count;
  $("moon").value = rules.moon;
  $("jack-of-diamonds").checked = rules.jack_of_diamonds;
}

async function nextDeal() {
  await send("next", { deal: session.deal });
  if (session && session.state !== "finished") focusTable();
}

// A session's answer: its deal on the table, or its results once every deal is over.
function showSession(answer) {
  sessionAnswer = answer;
  const counted = !session || session.id !== answer.session.id || session.state !== answer.session.state;
  session = answer.session;
  results = null;
  if (counted && session.state !== "finished") listSessions().catch(() => {}); // the list counts the deals (showResults lists too)
  if (session.state === "finished") {
    showResults(session);
    return;
  }
  $("session-results").hidden = true;
  $("side-by-side").hidden = true;
  $("play").hidden = false;
  drawSessionBar(session);
  showGame(answer.table);
}

function drawSessionBar(s) {
  const figures = s.figures;
  const sofar = figures.deals ?
    ` · so far you − ${s.agent_name}: ${signed(figures.difference.mean)} points per hand (95%: ${interval(figures.difference)})` : "";
  $("session-bar").hidden = false;
  $("session-bar").textContent = `Deal ${s.deal + 1} of ${s.settings.deals} · passing ${s.direction}${sofar}`;
}

// The score of a deal that ended: the person's points and the agent's on the same cards.
function drawSessionResult(view) {
  const banner = $("hand-result");
  banner.hidden = session.state !== "deal over";
  if (banner.hidden) return;
  const last = session.last;
  const deals = session.settings.deals;
  $("hand-result-title").textContent = `Deal ${last.deal + 1} of ${deals} (passing ${last.direction})`;
  $("deal-result").hidden = false;
  $("deal-result").textContent =
    `You took ${plural(last.you, "point")}; ${session.agent_name} took ${last.agent} on the same cards: ${signed(last.you - last.agent, 0)}.`;
  drawHandPoints(view);
  $("next-hand").hidden = false;
  $("next-hand").textContent = last.deal + 1 < deals ? "Next deal" : "See the results";
}

// ---------------------------------------------------------------------------------------------
// Results

function showResults(s) {
  results = s;
  for (const id of ["play", "side-by-side"]) $(id).hidden = true;
  $("session-results").hidden = false;
  const figures = s.figures;
  const d = figures.difference;
  const opponents = [...new Set(s.settings.opponents)].join(", ");
  $("results-title").textContent = `You against ${s.agent_name}, ${figures.deals} deals`;
  $("figure-mean").textContent = signed(d.mean);
  $("figure-low").textContent = signed(d.low);
  $("figure-high").textContent = signed(d.high);
  $("figure-deals").textContent = String(figures.deals);
  const verdict = d.low === null ? "" : d.high < 0 ? " Here the interval lies below zero: you did better." :
    d.low > 0 ? " Here the interval lies above zero: the agent did better." : " Here the interval holds zero: no clear difference yet.";
  $("figure-meaning").textContent = `Your points per hand minus those of ${s.agent_name}, on the same deals against ` +
    `the same opponents (${opponents}). Fewer points are better: below zero, you took fewer than the agent.${verdict}`;
  const head = el("tr", "", ...["pass", "deals", "you", "agent", "you − agent (95%)"].map((h) => el("th", "", h)));
  $("figure-directions").replaceChildren(head, ...Object.entries(figures.by_direction).map(([direction, f]) =>
    row(direction, f.deals, f.you.mean.toFixed(2), f.agent.mean.toFixed(2),
      signed(f.difference.mean) + (f.difference.low === null ? "" : ` (${interval(f.difference)})`))));
  $("most-different").replaceChildren(...figures.most_different.map((deal) => {
    const show = el("button", "", "Side by side");
    show.dataset.deal = String(deal.deal);
    show.addEventListener("click", () => showSideBySide(deal.deal, 0).catch(() => {}));
    const text = `Deal ${deal.deal + 1} (passing ${deal.direction}): you took ${deal.you}, ${s.agent_name} ${deal.agent}`;
    return el("li", "", el("span", "", text), show);
  }));
  if (!figures.most_different.length) $("most-different").appendChild(el("li", "", "none: the same points on every deal"));
  const base = `/api/sessions/${encodeURIComponent(s.id)}/export`;
  $("export-arena").href = `${base}/arena.json`;
  $("export-you").href = `${base}/you.jsonl`;
  $("export-agent").href = `${base}/agent.jsonl`;
  setStatus(s.state === "finished" ? "Session over" : `Deal ${s.deal + 1} of ${s.settings.deals}`);
  listSessions().catch(() => {});
}

async function showSideBySide(deal, step) {
  if (sideBySide && sideBySide.deal === deal) sideBySide.step = step; // clicks step on from here meanwhile
  const answer = await api("GET", `/api/sessions/${encodeURIComponent(results.id)}/deals/${deal}/steps/${step}`);
  if (sideBySide && sideBySide.deal === deal && sideBySide.step !== step) return; // a later step was asked for
  sideBySide = { deal, step, steps: answer.you.steps };
  $("session-results").hidden = true;
  $("side-by-side").hidden = false;
  drawTable($("sbs-you"), answer.you, undefined, { deal: true });
  drawTable($("sbs-agent"), answer.agent, undefined, { deal: true });
  $("sbs-agent-title").textContent = results.agent_name;
  const played = (view) => (view.played ? `seat ${view.played.seat} played ${view.played.card}` : "the deal");
  $("sbs-step").textContent = `Deal ${deal + 1} (passing ${answer.direction}) · step ${answer.you.step} of ${answer.you.steps - 1}` +
    ` · you: ${played(answer.you)} · agent: ${played(answer.agent)}`;
}

function stepSideBySide(delta) {
  if (!sideBySide) return;
  const step = Math.max(0, Math.min(sideBySide.steps - 1, sideBySide.step + delta));
  showSideBySide(sideBySide.deal, step).catch(() => {});
}

// ---------------------------------------------------------------------------------------------
// The sessions in the database

async function listSessions() {
  const { sessions } = await api("GET", "/api/sessions");
  const items = sessions.map((s) => {
    if (s.error) return listedDamaged(s);
    const d = s.difference;
    const when = s.created.replace("T", " ").slice(0, 16);
    const figure = s.deals_done ? ` · you − agent ${signed(d.mean)} (95%: ${interval(d)})` : "";
    const playing = session && session.id === s.id && session.state === "playing" ? ` (deal ${session.deal + 1} in play)` : "";
    const text = `${when} · ${s.agent_name} · against ${[...new Set(s.settings.opponents)].join(", ")} · ` +
      `${s.deals_done} of ${s.settings.deals} deals over${playing}${figure}`;
    const open = el("button", "", s.deals_done < s.settings.deals ? "Continue" : "Results");
    open.addEventListener("click", () => openSession(s.id).catch(() => {}));
    const remove = el("button", "", "Delete");
    remove.addEventListener("click", () => deleteSession(s.id).catch(() => {}));
    const item = el("li", "", el("span", "what", text), open, remove);
    item.dataset.id = s.id;
    return item;
  });
  $("session-list").replaceChildren(...(items.length ? items : [el("li", "", "none yet")]));
}

// A session whose stored rows do not read back: said, and offered for deletion only.
function listedDamaged(s) {
  const remove = el("button", "", "Delete");
  remove.addEventListener("click", () => deleteSession(s.id).catch(() => {}));
  const item = el("li", "", el("span", "what", s.error), remove);
  item.dataset.id = s.id;
  return item;
}

async function deleteSession(id) {
  if (!window.confirm("Delete this session and its deals?")) return;
  await api("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
  if (session && session.id === id) {
    session = sessionAnswer = results = null;
    for (const part of ["play", "session-results", "side-by-side"]) $(part).hidden = true;
  }
  await listSessions();
}
