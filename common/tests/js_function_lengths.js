// Prints, a JSON line each, every function of the JavaScript files named on the command line:
// {"path", "line", "end", "name"} (nested functions count towards the function that holds them too).
// Read by function_length.py; acorn comes from Debian's node-acorn (NODE_PATH=/usr/share/nodejs).
"use strict";
const acorn = require("acorn");
const fs = require("fs");

// holder: the name of the function around node; label: the name node gets from its property or variable.
function visit(node, path, holder, label) {
  if (!node || typeof node.type !== "string") return;
  if (/Function/.test(node.type)) {
    const own = node.id ? node.id.name : label || "(anonymous)";
    holder = holder ? `${holder}/${own}` : own;
    const { start, end } = node.loc;
    console.log(JSON.stringify({ path, line: start.line, end: end.line, name: holder }));
  }
  let childLabel = "";
  if ((node.type === "Property" || node.type === "MethodDefinition") && node.key) childLabel = node.key.name || "";
  if (node.type === "VariableDeclarator" && node.id) childLabel = node.id.name || "";
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) value.forEach((child) => visit(child, path, holder, childLabel));
    else if (value && typeof value.type === "string") visit(value, path, holder, childLabel);
  }
}

for (const path of process.argv.slice(2)) {
  const text = fs.readFileSync(path, "utf8");
  const options = { ecmaVersion: "latest", sourceType: "module", locations: true, allowHashBang: true };
  visit(acorn.parse(text, options), path, "", "");
}
