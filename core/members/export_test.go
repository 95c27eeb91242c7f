package members

// CountHashes returns how many argon2id hashes f computed. It swaps the package's hash
// function: call it only from a test that is not parallel.
func CountHashes(f func()) int {
	dummyHash() // made once, outside the count
	n := 0
	saved := deriveKey
	deriveKey = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		n++
		return saved(password, salt, time, memory, threads, keyLen)
	}
	defer func() { deriveKey = saved }()
	f()
	return n
}
