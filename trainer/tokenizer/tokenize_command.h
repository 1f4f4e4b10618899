// `traindeck-trainer tokenize …`: encode text to ids or decode ids to text (see docs/contributors/tokenizer.md).
#pragma once

namespace traindeck::tok {

// argv[0] is "tokenize", followed by its flags. Reads stdin / writes stdout and stderr.
// Returns the exit code: 0 success, 2 bad usage or input (missing/invalid file, bad flag, invalid
// tokenizer.json, invalid UTF-8, unknown id), 1 any other failure (e.g. output not writable).
int runTokenizeCommand(int argc, char** argv);

} // namespace traindeck::tok
