// Temporary stand-in for `traindeck-trainer tokenize …` until the trainer's main dispatches to the
// subcommand: `tokenize-tool tokenize ARGS` behaves as `traindeck-trainer tokenize ARGS` (the word
// "tokenize" may be left out).
#include <cstring>

#include "tokenizer/tokenize_command.h"

int main(int argc, char** argv) {
    static char name[] = "tokenize";
    if (argc > 1 && std::strcmp(argv[1], "tokenize") == 0) return traindeck::tok::runTokenizeCommand(argc - 1, argv + 1);
    argv[0] = name;
    return traindeck::tok::runTokenizeCommand(argc, argv);
}
