// Reads the @unicode/unicode-X npm packages that scripts/fetch_unicode_data.sh
// unpacked and writes the properties Sieve needs as one JSON file, which
// tools/gen_unicode_tables.py turns into C++ tables at build time.
//
//   node tools/unicode_extract.mjs PACKAGES_DIR OUT.json
//
// PACKAGES_DIR holds one folder per version (14.0.0, 16.0.0, 17.0.0), each an
// unpacked package. Ranges are written inclusive: [[first, last], ...].
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [packagesDir, outFile] = process.argv.slice(2);
if (!packagesDir || !outFile) {
  console.error('usage: node tools/unicode_extract.mjs PACKAGES_DIR OUT.json');
  process.exit(2);
}

// Every general category, by the long name the packages use and the short
// name regular expressions use.
const CATEGORIES = {
  L: 'Letter', Lu: 'Uppercase_Letter', Ll: 'Lowercase_Letter', Lt: 'Titlecase_Letter',
  Lm: 'Modifier_Letter', Lo: 'Other_Letter', LC: 'Cased_Letter',
  M: 'Mark', Mn: 'Nonspacing_Mark', Mc: 'Spacing_Mark', Me: 'Enclosing_Mark',
  N: 'Number', Nd: 'Decimal_Number', Nl: 'Letter_Number', No: 'Other_Number',
  P: 'Punctuation', Pc: 'Connector_Punctuation', Pd: 'Dash_Punctuation', Ps: 'Open_Punctuation',
  Pe: 'Close_Punctuation', Pi: 'Initial_Punctuation', Pf: 'Final_Punctuation', Po: 'Other_Punctuation',
  S: 'Symbol', Sm: 'Math_Symbol', Sc: 'Currency_Symbol', Sk: 'Modifier_Symbol', So: 'Other_Symbol',
  Z: 'Separator', Zs: 'Space_Separator', Zl: 'Line_Separator', Zp: 'Paragraph_Separator',
  C: 'Other', Cc: 'Control', Cf: 'Format', Cs: 'Surrogate', Co: 'Private_Use', Cn: 'Unassigned',
};
const BINARY = ['Alphabetic', 'Join_Control', 'White_Space'];

async function load(version, relative) {
  const file = path.join(packagesDir, version, relative);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing`);
  return (await import(pathToFileURL(file).href)).default;
}

const inclusive = (ranges) => ranges.map((r) => [r.begin, r.end - 1]);

async function version(v) {
  const out = { general_category: {}, binary: {} };
  for (const [short, long] of Object.entries(CATEGORIES)) {
    out.general_category[short] = inclusive(await load(v, `General_Category/${long}/ranges.mjs`));
  }
  for (const name of BINARY) out.binary[name] = inclusive(await load(v, `Binary_Property/${name}/ranges.mjs`));
  const simple = await load(v, 'Simple_Case_Mapping/Lowercase/code-points.mjs');
  out.simple_lowercase = [...simple.entries()].map(([cp, to]) => [cp, typeof to === 'string' ? to.codePointAt(0) : to]);
  const special = await load(v, 'Special_Casing/Lowercase/code-points.mjs');
  // Values are a code point, an array of them, or a string, by package version.
  const codePoints = (to) =>
    Array.isArray(to) ? to : typeof to === 'number' ? [to] : [...to].map((c) => c.codePointAt(0));
  out.special_lowercase = [...special.entries()]
    .map(([cp, to]) => [cp, codePoints(to)])
    .filter(([cp, to]) => !(to.length === 1 && to[0] === cp));
  return out;
}

const result = {};
for (const v of fs.readdirSync(packagesDir).sort()) result[v] = await version(v);
fs.writeFileSync(outFile, JSON.stringify(result));
