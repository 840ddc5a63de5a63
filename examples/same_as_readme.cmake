# cmake -DREADME=README.md -DEXAMPLE=examples/hello.c -P same_as_readme.cmake
# The README's "A minimal program" shows EXAMPLE byte for byte: its first ```c block after that
# heading must equal the file.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(FIND "${readme}" "## A minimal program\n\n```c\n" at)
if(at LESS 0)
  message(FATAL_ERROR "${README} has no '## A minimal program' heading followed by a ```c block")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```c\n" open)
math(EXPR open "${open} + 5")
string(SUBSTRING "${rest}" ${open} -1 rest)
string(FIND "${rest}" "```\n" close)
string(SUBSTRING "${rest}" 0 ${close} shown)
if(NOT shown STREQUAL example)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/readme_block.c "${shown}")
  execute_process(COMMAND diff -u ${EXAMPLE} ${CMAKE_CURRENT_BINARY_DIR}/readme_block.c
    OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "the README's program differs from ${EXAMPLE}:\n${diff}")
endif()
message("the README shows ${EXAMPLE} byte for byte")
