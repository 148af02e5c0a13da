package files

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hub/storage"
	"hub/workspace"
)

// KindFile is the ref kind of an attached file.
const KindFile = "file"

// File is an attached file as the rest of Hub sees it.
type File struct {
	ID          string
	SpaceID     string
	UploaderID  string
	Name        string
	ContentType string
	Size        int64
	CreatedAt   time.Time
	// IndexStatus is queued, indexing, indexed or failed (IndexError says
	// why); IndexGen numbers the version being indexed (package retrieval).
	IndexStatus string
	IndexError  string
	IndexGen    int
	// Summary and Keywords are what a summarize_file completion made of
	// this version (none: "" and nil); a new version has none.
	Summary  string
	Keywords []string
}

// Ref names a file to people and the model.
func (f File) Ref() workspace.Ref {
	return workspace.Ref{Kind: KindFile, ID: f.ID, Label: f.Name, Detail: f.ContentType}
}

// Errors an upload answers, each with the status a client sees.
var (
	// ErrTooLarge: the file is over the size limit (413).
	ErrTooLarge = errors.New("file too large")
	// ErrUnsupportedType: Hub does not take this type (415).
	ErrUnsupportedType = errors.New("unsupported file type")
	// ErrNoStore: no blob store is configured (503).
	ErrNoStore = errors.New("no file store configured")
	// ErrUnreadable: the file's bytes could not be read to their end (400).
	ErrUnreadable = errors.New("the upload could not be read to its end")
)

// Service keeps a space's files. A nil Store is a Hub without a file store:
// every upload and read answers ErrNoStore, lists still work.
type Service struct {
	db       *storage.DB
	ws       *workspace.Service
	store    Store
	maxBytes int64
}

// NewService builds the service. maxBytes ≤ 0 is DefaultMaxBytes.
func NewService(db *storage.DB, ws *workspace.Service, store Store, maxBytes int64) *Service {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Service{db: db, ws: ws, store: store, maxBytes: maxBytes}
}

// MaxBytes is the largest file taken.
func (s *Service) MaxBytes() int64 { return s.maxBytes }

func toFile(r storage.File) File {
	var keywords []string
	if r.Keywords != "" {
		_ = json.Unmarshal([]byte(r.Keywords), &keywords) // written by SetSummary; a bad one reads as none
	}
	return File{ID: r.ID, SpaceID: r.SpaceID, UploaderID: r.UploaderID, Name: r.Name, ContentType: r.ContentType,
		Size: r.Size, CreatedAt: r.CreatedAt, IndexStatus: r.IndexStatus, IndexError: r.IndexError, IndexGen: r.IndexGen,
		Summary: r.Summary, Keywords: keywords}
}

// Upload stores a file in the space for a person who may write there. The
// bytes are read in full before anything is stored, so a refused file
// leaves nothing behind; the blob is stored before its row, and removed
// again if the row fails.
func (s *Service) Upload(ctx context.Context, actor workspace.Actor, spaceID, name string, r io.Reader) (File, error) {
	if err := s.ws.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return File{}, err
	}
	in, err := s.accept(name, r)
	if err != nil {
		return File{}, err
	}
	row := storage.File{ID: storage.NewID("file"), SpaceID: spaceID, UploaderID: actor.PersonID, Name: in.name,
		ContentType: in.ctype, Size: int64(len(in.data)), CreatedAt: time.Now().UTC(), IndexStatus: "queued", IndexGen: 1, Keywords: "[]"}
	row.IndexStatus, row.IndexError = in.index()
	row.BlobKey = spaceID + "/" + row.ID
	err = s.stored(ctx, row.BlobKey, in, func() error { return s.db.Q(ctx).Create(&row).Error })
	if err != nil {
		return File{}, fmt.Errorf("save file: %w", err)
	}
	return toFile(row), nil
}

// Replace gives a file new contents (and the new part's name), for a
// person who may write in its space. The file keeps its id, so what cites
// or attaches it reads the new contents from then on; its next version is
// queued for indexing (the passages of the one before stay searchable
// until it is published). A picture has no passages, so replacing a file
// with one drops the file's passages in the same transaction.
func (s *Service) Replace(ctx context.Context, actor workspace.Actor, spaceID, id, name string, r io.Reader) (File, error) {
	if _, err := s.row(ctx, actor, spaceID, id); err != nil {
		return File{}, err
	}
	if err := s.ws.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return File{}, err
	}
	in, err := s.accept(name, r)
	if err != nil {
		return File{}, err
	}
	var old, row storage.File
	key := spaceID + "/" + storage.NewID("blob")
	err = s.stored(ctx, key, in, func() error {
		return s.db.InTx(ctx, func(ctx context.Context) error {
			// The no-op update locks the row, so the blob key read is the
			// one this replace retires.
			res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND space_id = ?", id, spaceID).Update("index_gen", gorm.Expr("index_gen"))
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 0 {
				return &workspace.NotFoundError{Kind: KindFile, ID: id}
			}
			if err := s.db.Q(ctx).Where("id = ?", id).Take(&old).Error; err != nil {
				return err
			}
			status, why := in.index()
			if err := s.db.Q(ctx).Model(&storage.File{}).Where("id = ?", id).Updates(map[string]any{
				"name": in.name, "content_type": in.ctype, "size": len(in.data), "blob_key": key,
				"index_gen": gorm.Expr("index_gen + 1"), "index_status": status, "index_error": why,
				"summary": "", "keywords": "[]"}).Error; err != nil { // the old version's summary is not this one's
				return err
			}
			if status == "failed" {
				if err := s.db.Q(ctx).Where("file_id = ?", id).Delete(&storage.Passage{}).Error; err != nil {
					return err
				}
			}
			return s.db.Q(ctx).Where("id = ?", id).Take(&row).Error
		})
	})
	var nf *workspace.NotFoundError
	if errors.As(err, &nf) {
		return File{}, err
	}
	if err != nil {
		return File{}, fmt.Errorf("replace file: %w", err)
	}
	if err := s.store.Delete(ctx, old.BlobKey); err != nil {
		slog.WarnContext(ctx, "remove blob of a replaced file", "key", old.BlobKey, "error", err)
	}
	return toFile(row), nil
}

// accepted is an upload's checked contents.
type accepted struct {
	name, ctype string
	data        []byte
}

// index is the index state a new version starts in: queued, or failed for
// a picture (search never finds one).
func (a accepted) index() (status, why string) {
	if IsImage(a.ctype) {
		return "failed", "a picture has no text to search"
	}
	return "queued", ""
}

// accept reads an upload in full and checks its name, type and size.
func (s *Service) accept(name string, r io.Reader) (accepted, error) {
	if s.store == nil {
		return accepted{}, ErrNoStore
	}
	name, err := cleanName(name)
	if err != nil {
		return accepted{}, err
	}
	br := bufio.NewReaderSize(r, 512)
	head, _ := br.Peek(512)
	ctype := Sniff(name, head)
	if ctype == "" {
		return accepted{}, fmt.Errorf("%w: Hub takes pictures (PNG, JPEG, GIF, WebP), PDFs, Word documents (.docx) "+
			"and text (plain, Markdown, HTML, CSV, JSON)", ErrUnsupportedType)
	}
	data, err := io.ReadAll(io.LimitReader(br, s.maxBytes+1))
	if err != nil {
		return accepted{}, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	if int64(len(data)) > s.maxBytes {
		return accepted{}, fmt.Errorf("%w: a file has at most %s", ErrTooLarge, humanBytes(s.maxBytes))
	}
	if IsText(ctype) && !utf8.Valid(data) {
		return accepted{}, fmt.Errorf("%w: a text file must be UTF-8", ErrUnsupportedType)
	}
	return accepted{name: name, ctype: ctype, data: data}, nil
}

// stored puts a blob under key, then runs save (the row's change); a
// failed save removes the blob again, so nothing is left of a refused file.
func (s *Service) stored(ctx context.Context, key string, in accepted, save func() error) error {
	if err := s.store.Put(ctx, key, bytes.NewReader(in.data), int64(len(in.data)), in.ctype); err != nil {
		return err
	}
	if err := save(); err != nil {
		if derr := s.store.Delete(context.WithoutCancel(ctx), key); derr != nil {
			slog.WarnContext(ctx, "remove blob of a file not saved", "key", key, "error", derr)
		}
		return err
	}
	return nil
}

// cleanName keeps the last element of a client's file name (some tools
// send a path) and checks it as text.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return "", &workspace.InvalidError{Path: "/file", Message: "the file part must carry a file name"}
	}
	if err := workspace.CheckText("/file", name); err != nil {
		return "", err
	}
	if utf8.RuneCountInString(name) > MaxNameChars {
		return "", &workspace.InvalidError{Path: "/file", Message: fmt.Sprintf("a file name has at most %d characters", MaxNameChars)}
	}
	return name, nil
}

func humanBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// MaxList bounds a list of files.
const MaxList = 200

// List returns the space's files, newest first (at most MaxList).
func (s *Service) List(ctx context.Context, actor workspace.Actor, spaceID string) ([]File, error) {
	if _, err := s.ws.Access(ctx, actor.PersonID, spaceID); err != nil {
		return nil, err
	}
	var rows []storage.File
	if err := s.db.Q(ctx).Where("space_id = ?", spaceID).Order("created_at DESC, id").Limit(MaxList).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	out := make([]File, len(rows))
	for i, r := range rows {
		out[i] = toFile(r)
	}
	return out, nil
}

// Get reads one file of the space; a file of another space is not found.
func (s *Service) Get(ctx context.Context, actor workspace.Actor, spaceID, id string) (File, error) {
	r, err := s.row(ctx, actor, spaceID, id)
	return toFile(r), err
}

func (s *Service) row(ctx context.Context, actor workspace.Actor, spaceID, id string) (storage.File, error) {
	if _, err := s.ws.Access(ctx, actor.PersonID, spaceID); err != nil {
		return storage.File{}, err
	}
	var r storage.File
	err := gorm.ErrRecordNotFound // an id that is not text names no file
	if !workspace.BadText(id) {
		err = s.db.Q(ctx).Where("id = ? AND space_id = ?", id, spaceID).Take(&r).Error
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, &workspace.NotFoundError{Kind: KindFile, ID: id}
	}
	if err != nil {
		return r, fmt.Errorf("get file: %w", err)
	}
	return r, nil
}

// Open reads a file's bytes; the caller closes the reader.
func (s *Service) Open(ctx context.Context, actor workspace.Actor, spaceID, id string) (File, io.ReadCloser, error) {
	r, err := s.row(ctx, actor, spaceID, id)
	if err != nil {
		return File{}, nil, err
	}
	if s.store == nil {
		return File{}, nil, ErrNoStore
	}
	rc, err := s.store.Open(ctx, r.BlobKey)
	if err != nil {
		return File{}, nil, err
	}
	return toFile(r), rc, nil
}

// Content reads a file's bytes for Hub itself (indexing), with no
// person's access: the caller got the id from Hub, not from a person.
func (s *Service) Content(ctx context.Context, id string) ([]byte, error) {
	if s.store == nil {
		return nil, ErrNoStore
	}
	var r storage.File
	if err := s.db.Q(ctx).Select("blob_key").Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, fmt.Errorf("get file %s: %w", id, err)
	}
	rc, err := s.store.Open(ctx, r.BlobKey)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, s.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read file %s: %w", id, err)
	}
	return data, nil
}

// Read reads at most limit bytes of a file.
func (s *Service) Read(ctx context.Context, actor workspace.Actor, spaceID, id string, limit int64) (File, []byte, error) {
	f, rc, err := s.Open(ctx, actor, spaceID, id)
	if err != nil {
		return File{}, nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit))
	if err != nil {
		return File{}, nil, fmt.Errorf("read file %s: %w", id, err)
	}
	return f, data, nil
}

// Delete removes a file for a person who may write in the space: the row
// first (from then on nobody can read it), then its blob.
func (s *Service) Delete(ctx context.Context, actor workspace.Actor, spaceID, id string) error {
	r, err := s.row(ctx, actor, spaceID, id)
	if err != nil {
		return err
	}
	if err := s.ws.CanWrite(ctx, actor.PersonID, spaceID); err != nil {
		return err
	}
	res := s.db.Q(ctx).Where("id = ? AND space_id = ?", id, spaceID).Delete(&storage.File{})
	if res.Error != nil {
		return fmt.Errorf("delete file: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return &workspace.NotFoundError{Kind: KindFile, ID: id}
	}
	if s.store != nil {
		if err := s.store.Delete(ctx, r.BlobKey); err != nil {
			// Nobody reads the blob again; an operator can sweep it.
			slog.WarnContext(ctx, "remove blob of a deleted file", "key", r.BlobKey, "error", err)
		}
	}
	return nil
}

// ErrStale is a write about a version of a file that is no longer its
// current one: it was replaced or deleted meanwhile.
var ErrStale = errors.New("the file was replaced or deleted meanwhile")

// SetSummary saves a summary and keywords made of version gen of a file,
// for Hub itself (a summarize_file completion checked the person's access
// when it read the file). A file replaced or deleted since is ErrStale, and
// nothing changes. It runs in the transaction ctx carries, if any.
func (s *Service) SetSummary(ctx context.Context, id string, gen int, summary string, keywords []string) error {
	if keywords == nil {
		keywords = []string{}
	}
	kw, err := json.Marshal(keywords)
	if err != nil {
		return fmt.Errorf("summary of file %s: %w", id, err)
	}
	res := s.db.Q(ctx).Model(&storage.File{}).Where("id = ? AND index_gen = ?", id, gen).
		Updates(map[string]any{"summary": summary, "keywords": string(kw)})
	if res.Error != nil {
		return fmt.Errorf("summary of file %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrStale
	}
	return nil
}

// Resolve checks the files a turn names, in order, repeats left out. An
// unknown id, or one of another space, is not found at /files/<i>.
func (s *Service) Resolve(ctx context.Context, actor workspace.Actor, spaceID string, ids []string) ([]File, error) {
	out := make([]File, 0, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		at := fmt.Sprintf("/files/%d", i)
		if strings.TrimSpace(id) == "" {
			return nil, &workspace.InvalidError{Path: at, Message: "a file id is required"}
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		f, err := s.Get(ctx, actor, spaceID, id)
		if err != nil {
			var nf *workspace.NotFoundError
			if errors.As(err, &nf) {
				return nil, &workspace.NotFoundError{Kind: nf.Kind, ID: nf.ID, Path: at}
			}
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
