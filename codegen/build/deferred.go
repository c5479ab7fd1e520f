package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// deferredLock is the file a process compiling a build folder's deferred libraries holds locked (flock).
const deferredLock = "deferred.lock"

// deferredPoll is how often a process that waits for another's deferred build looks for the libraries.
const deferredPoll = 100 * time.Millisecond

// CompileCPUDeferred compiles the deferred CPU libraries (LibrariesFile) of the run-time build in dir that do
// not exist yet: those named by files, or all. One process at a time compiles them, holding dir's
// deferredLock; another waits until the files it wants exist, or, should the lock come free without them
// (that process failed or was killed), compiles them itself. Libraries are written under a temporary name
// and renamed, so a failed or killed build leaves none half-written.
func (tc Toolchain) CompileCPUDeferred(dir string, files []string) error {
	infos, err := ReadLibraries(dir)
	if err != nil {
		return err
	}
	var deferred []string
	for _, l := range infos {
		if l.Deferred {
			deferred = append(deferred, l.File)
		}
	}
	for _, f := range files {
		if !slices.Contains(deferred, f) {
			return fmt.Errorf("%s has no deferred library %q (it has %s)", dir, f, strings.Join(deferred, ", "))
		}
	}
	if len(files) == 0 {
		files = deferred
	}
	missing := func() []string {
		return slices.DeleteFunc(slices.Clone(files), func(f string) bool { return fileExists(filepath.Join(dir, f)) })
	}
	lock, err := os.OpenFile(filepath.Join(dir, deferredLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close() // closing releases the lock
	for {
		if len(missing()) == 0 {
			return nil
		}
		err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("locking %s: %w", lock.Name(), err)
		}
		time.Sleep(deferredPoll)
	}
	// The lock file's time says since when this process compiles, for the messages of those that wait.
	if err := lock.Truncate(0); err == nil {
		fmt.Fprintf(lock, "%d\n", os.Getpid())
	}
	todo := missing()
	if len(todo) == 0 {
		return nil
	}
	libs, entries, facts, err := cpuPlan(dir, true)
	if err != nil {
		return err
	}
	libs = slices.DeleteFunc(libs, func(l cpuLibrary) bool { return !slices.Contains(todo, l.file) })
	if len(libs) != len(todo) {
		return fmt.Errorf("%s lists libraries its %s does not make: rebuild the folder", filepath.Join(dir, LibrariesFile), HeaderFile)
	}
	return tc.compileLibraries(dir, facts.Robot, libs, entries)
}
