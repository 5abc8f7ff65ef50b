/*
 * words.h - split a command line into argv the way a POSIX shell splits
 * words, without running a shell: blanks separate words; '...' keeps
 * everything literally; "..." keeps everything but \" \\ \$ \` escapes;
 * a backslash outside quotes escapes the next character.  No variable,
 * glob or command expansion -- the words are passed to exec as they are.
 *
 * split_words() returns the number of words and a NULL-terminated,
 * malloc'd vector the caller frees with free_words(); -EINVAL for an
 * unterminated quote or a trailing backslash, -ENOMEM.  No state.
 */
#ifndef PERFBOT_UTIL_WORDS_H
#define PERFBOT_UTIL_WORDS_H

int split_words(const char *line, char ***argv);
void free_words(char **argv);

#endif
