// The play page: start a game, show the table as your seat sees it, click one of your legal moves.
// The server holds the game; this page only shows what it is sent for your seat.
"use strict";

let gamesInfo = null;
let current = null; // the last state the server sent

function fillSelect(select, values, labels, chosen) {
  select.replaceChildren();
  values.forEach((value, i) => {
    const option = el("option", labels ? labels[i] : String(value), { value: String(value) });
    if (String(value) === String(chosen)) option.selected = true;
    select.appendChild(option);
  });
}

function chosenGame() {
  const name = document.getElementById("game").value;
  return gamesInfo.games.find((g) => g.name === name);
}

function fillPlayers() {
  const game = chosenGame();
  const variant = document.getElementById("variant").value;
  // a variant may fix its own player count: "default" lets the server use it
  const values = variant ? [""].concat(game.players) : game.players;
  const labels = values.map((v) => (v === "" ? "variant's" : String(v)));
  fillSelect(document.getElementById("players"), values, labels, variant ? "" : game.default_players);
  fillSeats();
}

function fillSeats() {
  const game = chosenGame();
  const players = Number(document.getElementById("players").value) || Math.max(...game.players);
  const seats = [...Array(players).keys()];
  fillSelect(document.getElementById("seat"), seats, seats.map((q) => "seat " + q), 0);
}

function fillVariants() {
  const game = chosenGame();
  fillSelect(document.getElementById("variant"), [""].concat(game.variants),
    ["standard"].concat(game.variants), "");
  fillPlayers();
}

function render(state) {
  current = state;
  document.getElementById("game-view").hidden = false;
  const status = document.getElementById("status");
  const who = state.agents.map((a, q) => (q === state.seat ? "you" : a));
  let text = state.title + ", " + state.players + " players, you are seat " + state.seat +
    " (" + who.map((a, q) => "seat " + q + ": " + a).join(", ") + "); step " + state.step + ". ";
  if (state.over) text += "Game over.";
  else if (state.your_turn) text += "Your turn.";
  else text += "Seat " + state.to_move + " to move.";
  status.textContent = text;
  // the SVG is built by the server from your seat's view, its text escaped there
  document.getElementById("table").innerHTML = state.svg;
  const moves = document.getElementById("moves");
  moves.replaceChildren();
  for (const move of state.legal) {
    const button = el("button", move.move, { type: "button", class: "move", "data-action": move.id });
    button.addEventListener("click", () => play(move.id));
    moves.appendChild(button);
  }
  if (!state.legal.length) moves.appendChild(el("p", state.over ? "The game is over." : "Waiting."));
  const log = document.getElementById("log");
  log.replaceChildren();
  for (const entry of state.log) {
    const who = entry.seat === state.seat ? "you" : "seat " + entry.seat + " (" + entry.agent + ")";
    log.appendChild(el("li", who + ": " + entry.move, { value: entry.step }));
  }
  log.scrollTop = log.scrollHeight;
  const result = document.getElementById("result");
  result.hidden = !state.over;
  result.replaceChildren();
  if (state.over) {
    result.appendChild(el("div", state.result.lines.join("\n"), { id: "result-lines" }));
    result.appendChild(el("div", "seed " + state.seed));
    if (state.record) {
      const link = el("a", "replay this game (" + state.record + ")",
        { id: "record-link", href: "/replay?record=" + encodeURIComponent(state.record) });
      result.appendChild(link);
    } else {
      result.appendChild(el("div", "not saved (the server has no --records folder)"));
    }
  }
  document.body.dataset.step = String(state.step);
}

async function play(action) {
  for (const button of document.querySelectorAll("#moves button")) button.disabled = true;
  try {
    render(await api("POST", "/api/play/" + current.session + "/move",
      { action: action, step: current.step }));
    showError("");
  } catch (err) {
    showError(err.message);
    render(await api("GET", "/api/play/" + current.session));
  }
}

async function start(event) {
  event.preventDefault();
  const seed = document.getElementById("seed").value.trim();
  const body = {
    game: document.getElementById("game").value,
    variant: document.getElementById("variant").value,
    players: document.getElementById("players").value,
    seat: document.getElementById("seat").value,
    opponents: document.getElementById("opponents").value,
    seed: seed,
  };
  try {
    const state = await api("POST", "/api/play", body);
    history.replaceState(null, "", "/play?session=" + encodeURIComponent(state.session));
    showError("");
    render(state);
  } catch (err) {
    showError(err.message);
  }
}

async function init() {
  try {
    gamesInfo = await api("GET", "/api/games");
  } catch (err) {
    showError(err.message);
    return;
  }
  const names = gamesInfo.games.map((g) => g.name);
  fillSelect(document.getElementById("game"), names, gamesInfo.games.map((g) => g.title), names[0]);
  fillVariants();
  document.getElementById("opponents").value = gamesInfo.default_agents.join(",");
  const kinds = document.getElementById("agent-kinds");
  for (const kind of gamesInfo.agent_kinds) kinds.appendChild(el("option", null, { value: kind }));
  document.getElementById("game").addEventListener("change", fillVariants);
  document.getElementById("variant").addEventListener("change", fillPlayers);
  document.getElementById("players").addEventListener("change", fillSeats);
  document.getElementById("new-game").addEventListener("submit", start);
  const session = new URLSearchParams(location.search).get("session");
  if (session) {
    try {
      render(await api("GET", "/api/play/" + encodeURIComponent(session)));
    } catch (err) {
      showError(err.message);
    }
  }
  document.body.dataset.ready = "1";
}

init();
