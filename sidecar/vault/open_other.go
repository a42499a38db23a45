//go:build !unix

package vault

import "os"

// openFlags: Windows has no O_NOFOLLOW; ReadFile's Lstat before the open
// and its SameFile check after it refuse a link or a swapped file instead.
const openFlags = os.O_RDONLY
