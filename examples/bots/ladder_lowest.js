#!/usr/bin/env node
// A Hearts bot for the ladder in JavaScript (docs/ladder.md): it connects over TCP with its token,
// then speaks the bot protocol (docs/bot-protocol.md), playing its lowest legal card (the first
// listed: cards come in id order). It connects again a second after the connection ends.
//   node examples/bots/ladder_lowest.js 127.0.0.1:7474 TOKEN
"use strict";
const net = require("net");
const [address, token] = process.argv.slice(2);
const colon = address.lastIndexOf(":");
const [host, port] = [address.slice(0, colon), Number(address.slice(colon + 1))];

function connect() {
  const socket = net.connect(port, host, () => socket.write(`hearts-ladder 1 token=${token}\n`));
  let buffer = "";
  let answers = [];
  socket.setEncoding("ascii");
  socket.on("data", (chunk) => {
    buffer += chunk;
    for (let end; (end = buffer.indexOf("\n")) >= 0; buffer = buffer.slice(end + 1)) {
      const line = buffer.slice(0, end).trim();
      const words = line.split(/\s+/);
      const kind = words[0];
      if (kind === "refused" && !/^refused (busy|no complete handshake)/.test(line)) {
        console.error(`ladder_lowest.js: ${line}`); // for good (busy or late: "close" tries again)
        process.exit(1);
      } else if (kind === "hearts-bot-protocol") {
        socket.write("hearts-bot-protocol 1 name=lowest-js tables=many\n");
      } else if (kind === "pass" || kind === "play") {
        const legal = words.find((word) => word.startsWith("legal="));
        answers.push(`${words[1]} ${legal.slice("legal=".length).split(",")[0]}\n`);
      } else if (kind === "go") {
        socket.write(answers.join(""));
        answers = [];
      } // welcome, table lines, events, seeds and "dropped" need nothing
    }
  });
  socket.on("error", () => {}); // "close" follows
  socket.on("close", () => setTimeout(connect, 1000));
}

connect();
