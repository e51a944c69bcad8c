//go:build !unix

package atomicfile

import "os"

// renameOpen: without flock there is no lock to keep through the rename,
// and an open file may not be renamable.
const renameOpen = false

// hold does nothing on systems without flock.
func hold(*os.File) {}

// removeIfAbandoned keeps every temporary file on systems without flock:
// whether its writer lives cannot be told portably.
func removeIfAbandoned(string) {}
