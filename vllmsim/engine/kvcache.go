package engine

// kvCache is the paged KV cache: a fixed number of blocks of blockSize
// tokens, reference counted, with a prefix cache that maps a chained block
// hash to the block holding those tokens. Free blocks sit in one LRU queue
// (evicted from the head, freed to the tail); a free block that still holds a
// hash can be taken back by a later request with the same prefix until it is
// evicted, as vLLM V1's block pool does.
type kvCache struct {
	blockSize int
	caching   bool
	blocks    []kvBlock
	head      int32 // LRU head: next block to evict; -1 when empty
	tail      int32
	numFree   int
	byHash    map[uint64]int32
}

type kvBlock struct {
	ref        int32
	hashed     bool
	hash       uint64
	prev, next int32 // links in the free queue, -1 at the ends
	inFree     bool
}

func newKVCache(numBlocks, blockSize int, caching bool) *kvCache {
	c := &kvCache{blockSize: blockSize, caching: caching, blocks: make([]kvBlock, numBlocks),
		head: -1, tail: -1, byHash: make(map[uint64]int32)}
	for i := range c.blocks {
		c.blocks[i].prev, c.blocks[i].next = -1, -1
		c.pushTail(int32(i))
	}
	return c
}

func (c *kvCache) pushTail(b int32) {
	blk := &c.blocks[b]
	blk.prev, blk.next, blk.inFree = c.tail, -1, true
	if c.tail >= 0 {
		c.blocks[c.tail].next = b
	} else {
		c.head = b
	}
	c.tail = b
	c.numFree++
}

func (c *kvCache) unlink(b int32) {
	blk := &c.blocks[b]
	if blk.prev >= 0 {
		c.blocks[blk.prev].next = blk.next
	} else {
		c.head = blk.next
	}
	if blk.next >= 0 {
		c.blocks[blk.next].prev = blk.prev
	} else {
		c.tail = blk.prev
	}
	blk.prev, blk.next, blk.inFree = -1, -1, false
	c.numFree--
}

// blocksFor is the number of blocks that hold n tokens.
func (c *kvCache) blocksFor(n int) int { return (n + c.blockSize - 1) / c.blockSize }

// usage is the fraction of blocks in use, as vLLM's kv_cache_usage_perc:
// 1 − free/total, where cached but unreferenced blocks count as free.
func (c *kvCache) usage() float64 {
	if len(c.blocks) == 0 {
		return 0
	}
	return 1 - float64(c.numFree)/float64(len(c.blocks))
}

// lookup returns how many leading blocks of hashes are cached, at most max.
func (c *kvCache) lookup(hashes []uint64, max int) int {
	if !c.caching {
		return 0
	}
	n := 0
	for n < max && n < len(hashes) {
		if _, ok := c.byHash[hashes[n]]; !ok {
			break
		}
		n++
	}
	return n
}

// freeAmong counts how many of the first n cached blocks of hashes are
// currently free (taking them removes them from the free queue).
func (c *kvCache) freeAmong(hashes []uint64, n int) int {
	k := 0
	for _, h := range hashes[:n] {
		if c.blocks[c.byHash[h]].inFree {
			k++
		}
	}
	return k
}

// touch takes a reference on the cached blocks of the first n hashes and
// appends them to dst.
func (c *kvCache) touch(dst []int32, hashes []uint64, n int) []int32 {
	for _, h := range hashes[:n] {
		b := c.byHash[h]
		if c.blocks[b].inFree {
			c.unlink(b)
		}
		c.blocks[b].ref++
		dst = append(dst, b)
	}
	return dst
}

// allocate appends n fresh blocks to dst, evicting the least recently freed
// cached blocks; it reports false, allocating nothing, when fewer than n are
// free.
func (c *kvCache) allocate(dst []int32, n int) ([]int32, bool) {
	if n > c.numFree {
		return dst, false
	}
	for range n {
		b := c.head
		c.unlink(b)
		blk := &c.blocks[b]
		if blk.hashed {
			if c.byHash[blk.hash] == b {
				delete(c.byHash, blk.hash)
			}
			blk.hashed = false
		}
		blk.ref = 1
		dst = append(dst, b)
	}
	return dst, true
}

// release drops one reference on each block; blocks that reach zero go to
// the tail of the free queue, the last block first so that a request's
// leading (most shared) blocks are evicted last, as vLLM frees them.
func (c *kvCache) release(blocks []int32) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		c.blocks[b].ref--
		if c.blocks[b].ref == 0 {
			c.pushTail(b)
		}
	}
}

// register records that block b holds the full block whose chained hash is
// h. A hash already held by another block keeps its first holder.
func (c *kvCache) register(b int32, h uint64) {
	if !c.caching || c.blocks[b].hashed {
		return
	}
	if _, dup := c.byHash[h]; dup {
		return
	}
	c.blocks[b].hashed, c.blocks[b].hash = true, h
	c.byHash[h] = b
}

// reset forgets every cached hash; blocks in use keep their contents but are
// no longer found by lookups.
func (c *kvCache) reset() {
	for i := range c.blocks {
		c.blocks[i].hashed = false
	}
	clear(c.byHash)
}

// blockHashes returns the chained hashes of the full blocks of tokens:
// hash_i = H(hash_{i−1}, tokens of block i), FNV-1a over the parent hash and
// the token ids, so equal prefixes give equal hashes and nothing else does.
// TokenHash is the FNV-1a hash of a token sequence.
func TokenHash(p []int32) uint64 {
	h := uint64(fnvOffset)
	for _, t := range p {
		h = fnvMix32(h, uint32(t))
	}
	return h
}

func blockHashes(tokens []int32, blockSize int) []uint64 {
	n := len(tokens) / blockSize
	out := make([]uint64, n)
	var parent uint64
	for i := range n {
		h := uint64(fnvOffset)
		h = fnvMix64(h, parent)
		for _, t := range tokens[i*blockSize : (i+1)*blockSize] {
			h = fnvMix32(h, uint32(t))
		}
		out[i], parent = h, h
	}
	return out
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvMix32(h uint64, v uint32) uint64 {
	for range 4 {
		h ^= uint64(v & 0xff)
		h *= fnvPrime
		v >>= 8
	}
	return h
}

func fnvMix64(h, v uint64) uint64 {
	h = fnvMix32(h, uint32(v))
	return fnvMix32(h, uint32(v>>32))
}
