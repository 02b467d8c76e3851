// Builds the console: schema.graphql from ../schema.graphqls (extensions
// merged, as relay-compiler reads one document), the Relay artifacts, a
// strict type check, then a deterministic esbuild build (console.js and
// console.css, and the pages loaded on demand as chunk-<content hash>.js; no
// timestamps, no source maps) into ../httpapi/console/dist.
// `node build.mjs --check` changes nothing: it fails unless the committed
// artifacts and bundle are what the source and schema give.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { buildSchema, printSchema } from "graphql";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "httpapi", "console", "dist");
const check = process.argv.includes("--check");
const bin = (name) => path.join(here, "node_modules", ".bin", name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: here, stdio: "inherit" });

fs.writeFileSync(
  path.join(here, "schema.graphql"),
  printSchema(buildSchema(fs.readFileSync(path.join(here, "..", "schema.graphqls"), "utf8"))) + "\n",
);
try {
  run(bin("relay-compiler"), check ? ["--validate"] : []);
} catch {
  console.error(check ? "console: the Relay artifacts are out of date with schema.graphqls or src/: run `make console`" : "console: relay-compiler failed");
  process.exit(1);
}
try {
  run(bin("tsc"), ["--noEmit", "-p", "."]);
} catch {
  console.error("console: the type check failed");
  process.exit(1);
}

// relayPlugin replaces each graphql`...` tag with an import of the artifact
// relay-compiler made for it, what babel-plugin-relay does for Babel builds.
const relayPlugin = {
  name: "relay",
  setup(build) {
    build.onLoad({ filter: /\/src\/.*\.tsx?$/ }, async (args) => {
      let source = await fs.promises.readFile(args.path, "utf8");
      if (!/(?<![\w/.$-])graphql`/.test(source)) return undefined;
      const imports = [];
      source = source.replace(/(?<![\w/.$-])graphql`([^`]*)`/g, (_, text) => {
        const m = /(?:fragment|query|mutation|subscription)\s+(\w+)/.exec(text);
        if (!m) throw new Error(`${args.path}: a graphql tag without a name`);
        let rel = path.relative(path.dirname(args.path), path.join(here, "src", "__generated__", m[1] + ".graphql.ts"));
        if (!rel.startsWith(".")) rel = "./" + rel;
        imports.push(`import __relay_${m[1]} from ${JSON.stringify(rel.split(path.sep).join("/"))};`);
        return `__relay_${m[1]}`;
      });
      return { contents: imports.join("\n") + "\n" + source, loader: args.path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};

const built = (dir) => fs.readdirSync(dir).filter((f) => /\.(js|css)$/.test(f)).sort();
const outdir = check ? fs.mkdtempSync(path.join(os.tmpdir(), "console-")) : dist;
if (!check) for (const f of built(dist)) fs.rmSync(path.join(dist, f)); // chunks of an older build
await esbuild.build({
  absWorkingDir: here,
  entryPoints: { console: "src/main.tsx" },
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  entryNames: "[name]",
  chunkNames: "chunk-[hash]",
  target: ["es2020"],
  platform: "browser",
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "eof",
  charset: "utf8",
  outdir,
  plugins: [relayPlugin],
  logLevel: "warning",
});

if (check) {
  const stale = [];
  const names = built(outdir);
  if (names.join() !== built(dist).join()) stale.push(`the file list (fresh: ${names.join(", ")})`);
  for (const name of names) {
    const fresh = fs.readFileSync(path.join(outdir, name));
    let committed = null;
    try {
      committed = fs.readFileSync(path.join(dist, name));
    } catch {}
    if (!committed || !fresh.equals(committed)) stale.push(name);
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  if (stale.length) {
    console.error(`console: httpapi/console/dist/${stale.join(", ")} differ from a fresh build: run \`make console\` and commit`);
    process.exit(1);
  }
  console.log("console: the committed bundle and Relay artifacts match the source");
}
