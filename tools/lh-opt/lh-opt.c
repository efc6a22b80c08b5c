//===- lh-opt.c - lighthouse's MLIR optimizer driver ----------------------===//

#include "lighthouse-c/Tools.h"

int main(int argc, char **argv) { return lighthouseOptMain(argc, argv); }
