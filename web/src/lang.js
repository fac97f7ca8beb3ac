// Highlighting for .wrap specs, from the keyword lists of the editor
// extension's TextMate grammar (editors/vscode), so that both agree.
import { StreamLanguage } from "@codemirror/language";
import grammar from "../../editors/vscode/syntaxes/wrap.tmLanguage.json";

// words collects the \b(a|b|c)\b alternatives of every match in the
// grammar whose scope name contains one of parts.
function words(parts) {
  const out = new Set();
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== "object") return;
    if (typeof node.match === "string" && typeof node.name === "string" && parts.some((p) => node.name.includes(p))) {
      const m = node.match.match(/^\\b\(?([a-z|]+)\)?\\b$/);
      if (m) m[1].split("|").forEach((w) => out.add(w));
    }
    Object.values(node).forEach(walk);
  };
  walk(grammar);
  return out;
}
const keywords = words(["keyword", "storage"]);
const atoms = words(["constant.language"]);
const types = words(["support.type", "entity.name.type"]);

export const wrapLanguage = StreamLanguage.define({
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match(/^"([^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^[0-9]+/)) return "number";
    const w = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (w) {
      if (keywords.has(w[0])) return "keyword";
      if (atoms.has(w[0])) return "atom";
      if (types.has(w[0])) return "typeName";
      return "variableName";
    }
    if (stream.match(/^(:=|=>|\.\.|==|!=|<=|>=|[-+*\/%<>=])/)) return "operator";
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: "//" } },
});
