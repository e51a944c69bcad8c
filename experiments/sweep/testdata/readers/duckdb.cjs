// Reads polluxsim's output tables with DuckDB (npm @duckdb/node-api) and
// checks them against the documented schema.
// Usage: node duckdb.cjs SCHEMA.json FILE.parquet...
// SCHEMA.json maps a file's base name to its documented columns
// [{name, type, nullable, conditional}]; a conditional column (deadline_s,
// interruptions, ...) is expected only in a file that has it. Prints one
// line per problem; exits 1 if any.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [schemaFile, ...files] = process.argv.slice(2);
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjects();
  const lit = (s) => "'" + s.replace(/'/g, "''") + "'";
  let problems = 0;
  const bad = (msg) => { problems++; console.log(msg); };
  const byName = {};
  for (const f of files) {
    const name = path.basename(f);
    (byName[name] = byName[name] || []).push(f);
    if (!schema[name]) { bad(`${f}: not a documented table`); continue; }
    const got = await q(`DESCRIBE SELECT * FROM read_parquet(${lit(f)})`);
    const present = new Set(got.map((g) => g.column_name));
    const want = schema[name].filter((w) => !w.conditional || present.has(w.name));
    if (got.length !== want.length) bad(`${f}: ${got.length} columns, documented ${want.length}`);
    for (let i = 0; i < Math.min(got.length, want.length); i++) {
      const g = got[i], w = want[i];
      if (g.column_name !== w.name || g.column_type !== w.type) {
        bad(`${f}: column ${i} is ${g.column_name} ${g.column_type}, documented ${w.name} ${w.type}`);
        continue;
      }
      const col = '"' + w.name + '"';
      const nan = w.type === 'DOUBLE' ? `, count(*) FILTER (WHERE isnan(${col}) OR isinf(${col})) AS nan` : ', 0 AS nan';
      const [r] = await q(`SELECT count(*) - count(${col}) AS nulls ${nan} FROM read_parquet(${lit(f)})`);
      if (!w.nullable && Number(r.nulls) > 0) bad(`${f}: ${w.name}: ${r.nulls} nulls in a non-nullable column`);
      if (Number(r.nan) > 0) bad(`${f}: ${w.name}: ${r.nan} NaN or infinite values`);
    }
    const [n] = await q(`SELECT count(*) AS n, count(DISTINCT run_id) AS runs FROM read_parquet(${lit(f)})`);
    console.log(`${f}: ${n.n} rows, ${n.runs} runs`);
  }
  // Files of the same table concatenate with no renaming and keep every row.
  for (const [name, fs_] of Object.entries(byName)) {
    if (fs_.length < 2) continue;
    const list = '[' + fs_.map(lit).join(', ') + ']';
    const [all] = await q(`SELECT count(*) AS n FROM read_parquet(${list}, union_by_name = false)`);
    let sum = 0;
    for (const f of fs_) sum += Number((await q(`SELECT count(*) AS n FROM read_parquet(${lit(f)})`))[0].n);
    if (Number(all.n) !== sum) bad(`${name}: concatenation has ${all.n} rows, the files ${sum}`);
  }
  process.exit(problems > 0 ? 1 : 0);
}
main().catch((e) => { console.log(String(e)); process.exit(1); });
