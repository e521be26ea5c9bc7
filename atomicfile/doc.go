// SPDX-License-Identifier: Apache-2.0

// Package atomicfile writes output files so that a reader never sees half
// of one and an error never costs the user a file they had: the output is
// written to a temporary file in the target's directory and renamed onto
// the target only when complete (Commit), or removed (Abort). A Group
// does the same for several files written as one output: none is renamed
// until all are complete, and an error before that replaces none.
//
// It also refuses an output that is one of the inputs (CheckNotInput):
// the same file by any spelling, a hard link or a symbolic link, compared
// with os.SameFile before anything is opened for writing.
//
// What is not a regular file has nothing to be renamed onto and is
// written in place (File.InPlace): a device, a named pipe, and a path
// naming one of the process's descriptors (/dev/stdout, /dev/fd/3),
// written through a duplicate of the descriptor, so that a pipe or a
// file the shell opened gets the output as a program writing to it
// would give it.
//
// A process ending on a signal calls RemovePending: the temporary files
// of the outputs not yet in place are removed (a Commit under way first
// finishes, so a Group is in place whole or not at all), and nothing more
// is put in place; killed, it left them hidden beside their targets.
//
// Every command of sfcdump that writes a file (read -w, capture -w,
// timeline -o, wireshark install, man, conform gen and scenario) goes
// through this package; those that write several files use a Group.
package atomicfile
