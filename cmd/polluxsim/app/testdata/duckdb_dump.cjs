// duckdb_dump.cjs OUT.json FILE.parquet...: DuckDB's read of each table, as
// {file: {columns: [...], types: [...], rows: [[...], ...]}} (BIGINT as
// decimal strings, DOUBLE as numbers, null as null), in file order.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
(async () => {
  const [out, ...files] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run('SET threads = 1');
  const dump = {};
  for (const f of files) {
    const r = await c.runAndReadAll(`SELECT * FROM read_parquet('${f.replace(/'/g, "''")}')`);
    dump[f] = { columns: r.columnNames(), types: r.columnTypes().map(String), rows: r.getRowsJson() };
  }
  fs.writeFileSync(out, JSON.stringify(dump));
})().catch(e => { console.error(e.message); process.exit(1); });
