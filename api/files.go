package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"hub/files"
	"hub/retrieval"
	"hub/workflows"
)

const codeUnsupportedType = "unsupported_type"

// multipartEnvelope is what a multipart body may carry besides the file: boundaries, part headers, small fields.
const multipartEnvelope = 64 << 10

type fileDTO struct {
	ID          string    `json:"id"`
	SpaceID     string    `json:"spaceId"`
	Name        string    `json:"name"`
	ContentType string    `json:"contentType"`
	Size        int64     `json:"size"`
	UploaderID  string    `json:"uploaderId"`
	CreatedAt   time.Time `json:"createdAt"`
	URL         string    `json:"url" doc:"Reads the file's bytes (GET …/content)."`
	IndexStatus string    `json:"indexStatus" doc:"Whether search finds the file: queued or indexing (not yet), indexed, failed (indexError says why)."`
	IndexError  string    `json:"indexError,omitempty"`
	Summary     string    `json:"summary,omitempty" doc:"What a summarize_file completion (POST /api/completions) made of this version of the file; absent: none yet."`
	Keywords    []string  `json:"keywords,omitempty" doc:"The keywords that completion chose (at most 8)."`
}

func toFileDTO(f files.File) fileDTO {
	return fileDTO{ID: f.ID, SpaceID: f.SpaceID, Name: f.Name, ContentType: f.ContentType, Size: f.Size,
		UploaderID: f.UploaderID, CreatedAt: f.CreatedAt, IndexStatus: f.IndexStatus, IndexError: f.IndexError,
		Summary: f.Summary, Keywords: f.Keywords,
		URL: "/api/spaces/" + url.PathEscape(f.SpaceID) + "/files/" + url.PathEscape(f.ID) + "/content"}
}

// fileError maps the file store's own errors to their answers; others (and nil) pass.
func (s *Server) fileError(err error) error {
	switch {
	case errors.Is(err, files.ErrTooLarge):
		err = newError(http.StatusRequestEntityTooLarge, codeTooLarge, "/file", err.Error())
	case errors.As(err, new(*http.MaxBytesError)):
		err = newError(http.StatusRequestEntityTooLarge, codeTooLarge, "/file", fmt.Sprintf("file too large: a file has at most %d bytes", s.Files.MaxBytes()))
	case errors.Is(err, files.ErrUnreadable):
		// The client's body ended early or broke: its fault, not Hub's.
		err = badRequest("/file", "the file could not be read to its end: the multipart body is cut short or broken; send it again")
	case errors.Is(err, files.ErrUnsupportedType):
		err = newError(http.StatusUnsupportedMediaType, codeUnsupportedType, "/file", err.Error())
	case errors.Is(err, files.ErrNoStore):
		err = unavailable("No file store is configured, so files cannot be attached. Set HUB_FILES_DIR or HUB_FILES_S3_ENDPOINT and HUB_FILES_S3_BUCKET and start Hub again.")
	case errors.Is(err, files.ErrNoBlob):
		err = newError(http.StatusNotFound, codeNotFound, "", "the file's contents are gone from the file store")
	}
	return err
}

// uploadFile takes one multipart part named "file" (filePart).
func (s *Server) uploadFile(c *gin.Context) (any, error) {
	return s.filePart(c, func(name string, r io.Reader) (files.File, error) {
		return s.Files.Upload(c.Request.Context(), actor(c), c.Param("spaceId"), name, r)
	})
}

// replaceFile gives a file new contents from one multipart part named
// "file" (filePart); the file keeps its id.
func (s *Server) replaceFile(c *gin.Context) (any, error) {
	return s.filePart(c, func(name string, r io.Reader) (files.File, error) {
		return s.Files.Replace(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"), name, r)
	})
}

// filePart reads the multipart part named "file" into store (an upload or
// a replace) and starts indexing what it stored. The body is bounded
// before it is read, and nothing is stored unless the whole file was read
// and passed the checks.
func (s *Server) filePart(c *gin.Context, store func(name string, r io.Reader) (files.File, error)) (any, error) {
	limit := s.Files.MaxBytes() + multipartEnvelope
	if c.Request.ContentLength > limit {
		return nil, s.fileError(fmt.Errorf("%w: a file has at most %d bytes", files.ErrTooLarge, s.Files.MaxBytes()))
	}
	notMultipart := badRequest("/file", "send the file as multipart/form-data with a part named file")
	if mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, notMultipart
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, notMultipart
	}
	for {
		part, err := mr.NextPart()
		switch {
		case errors.Is(err, io.EOF):
			return nil, badRequest("/file", "the request has no part named file")
		case errors.As(err, new(*http.MaxBytesError)):
			return nil, s.fileError(err)
		case err != nil:
			return nil, badRequest("/file", "the multipart body could not be read")
		}
		if part.FormName() != "file" {
			_ = part.Close()
			continue
		}
		f, err := store(part.FileName(), part)
		_ = part.Close()
		if err == nil && f.IndexStatus == retrieval.StatusQueued {
			s.startIndex(c.Request.Context(), f)
		}
		return toFileDTO(f), s.fileError(err)
	}
}

// startIndex starts indexing a file's version. A start that fails leaves
// the file queued: the worker's sweeper starts it (wiring.Sweep).
func (s *Server) startIndex(ctx context.Context, f files.File) {
	if err := workflows.StartIndex(ctx, s.Temporal, s.TaskQueue, f.ID, f.IndexGen); err != nil {
		slog.WarnContext(ctx, "start indexing; the sweeper starts it later", "file", f.ID, "error", err)
	}
}

type fileListDTO struct {
	Files []fileDTO `json:"files"`
}

func (s *Server) listFiles(c *gin.Context) (any, error) {
	fs, err := s.Files.List(c.Request.Context(), actor(c), c.Param("spaceId"))
	return fileListDTO{Files: toDTOs(fs, toFileDTO)}, s.fileError(err)
}

func (s *Server) getFile(c *gin.Context) (any, error) {
	f, err := s.Files.Get(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
	return toFileDTO(f), s.fileError(err)
}

// fileContent sends a file's bytes, always an attachment with nosniff: a browser never runs it.
func (s *Server) fileContent(c *gin.Context) {
	f, rc, err := s.Files.Open(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id"))
	if err != nil {
		respondError(c, s.fileError(err))
		return
	}
	defer rc.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	c.Status(http.StatusOK)
	_, _ = io.Copy(c.Writer, rc)
}

// indexFile indexes a file's next version, for a person who may write in
// its space.
func (s *Server) indexFile(c *gin.Context) (any, error) {
	ctx := c.Request.Context()
	f, err := s.Files.Get(ctx, actor(c), c.Param("spaceId"), c.Param("id"))
	if err != nil {
		return nil, s.fileError(err)
	}
	if err := s.Workspace.CanWrite(ctx, actor(c).PersonID, f.SpaceID); err != nil {
		return nil, err
	}
	if files.IsImage(f.ContentType) {
		return nil, badRequest("", "a picture has no text to search")
	}
	if s.Retrieval == nil {
		return nil, unavailable("search is not set up on this server")
	}
	v, err := s.Retrieval.Requeue(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	f.IndexStatus, f.IndexError, f.IndexGen = v.Status, "", v.Gen
	s.startIndex(ctx, f)
	return toFileDTO(f), nil
}

type passageDTO struct {
	FileID  string `json:"fileId"`
	Key     string `json:"key"`
	Title   string `json:"title" doc:"The file's name."`
	Section string `json:"section" doc:"The heading the passage sits under (\"\" before the first)."`
	Text    string `json:"text"`
}

// getPassage shows a cited passage. A key the file's current version does
// not have (the file changed since the reply) is 404, as is a file of a
// space the person cannot open.
func (s *Server) getPassage(c *gin.Context) (any, error) {
	spaceID, fileID, key := c.Param("spaceId"), c.Param("id"), c.Param("key")
	if _, err := s.Files.Get(c.Request.Context(), actor(c), spaceID, fileID); err != nil {
		return nil, s.fileError(err)
	}
	if s.Retrieval == nil {
		return nil, newError(http.StatusNotFound, codeNotFound, "", "no such passage")
	}
	h, err := s.Retrieval.FilePassage(c.Request.Context(), actor(c).PersonID, spaceID, fileID, key)
	if errors.Is(err, retrieval.ErrNoPassage) {
		return nil, newError(http.StatusNotFound, codeNotFound, "", "the file has no passage "+strconv.Quote(key)+": it may have changed since it was cited")
	}
	if err != nil {
		return nil, err
	}
	return passageDTO{FileID: fileID, Key: retrieval.PassageKey(h.Hash), Title: h.Title, Section: h.Section, Text: h.Body}, nil
}

func (s *Server) deleteFile(c *gin.Context) (any, error) {
	return nil, s.fileError(s.Files.Delete(c.Request.Context(), actor(c), c.Param("spaceId"), c.Param("id")))
}
