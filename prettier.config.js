// Prettier: the existing style (single quotes, semicolons, trailing commas) at the width the code
// already uses; of 100, 110, 120 and 140, 140 rewrites the fewest files and lines (253 files,
// 1,812 lines, against 322 and 3,209 at 120), and it is the bound no code line may pass.
/** @type {import('prettier').Config} */
export default {
  printWidth: 140,
  singleQuote: true,
};
