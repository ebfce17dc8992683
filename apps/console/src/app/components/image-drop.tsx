import { useEffect, useState } from 'preact/hooks';

/** The image types `POST /problems` accepts (the gateway answers 415 for others, and says so). */
const ACCEPTED_IMAGES = 'image/png,image/jpeg,image/webp,image/gif,image/tiff,image/avif,image/heic';

/**
 * Choose an image of the problem: a file input (on phones it offers the camera), or a file dropped
 * on the zone; a preview of the chosen one.
 */
export function ImageDrop({ file, onFile, invalid, describedBy }: { file: File | undefined; onFile: (file: File | undefined) => void; invalid: boolean; describedBy: string | undefined }) {
  const [dragging, setDragging] = useState(false);
  const [preview, setPreview] = useState<string | undefined>();
  useEffect(() => {
    if (file === undefined) return setPreview(undefined);
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  return (
    <div
      class={`image-drop${dragging ? ' image-drop-active' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        const dropped = event.dataTransfer?.files[0];
        if (dropped !== undefined) onFile(dropped);
      }}
    >
      <label for="problem-image">Image of the problem</label>
      <p id="image-hint" class="hint">
        Choose a photo or scan (PNG, JPEG, WebP, GIF, TIFF, AVIF, HEIC), take one with the camera on a phone, or drop a file here.
      </p>
      <input
        id="problem-image"
        name="file"
        type="file"
        accept={ACCEPTED_IMAGES}
        aria-describedby={describedBy === undefined ? 'image-hint' : `image-hint ${describedBy}`}
        aria-invalid={invalid}
        onChange={(event) => onFile(event.currentTarget.files?.[0])}
      />
      {file !== undefined && (
        <p>
          {preview !== undefined && <img class="image-preview" src={preview} alt={`The chosen image, ${file.name}`} />}
          <span class="hint">
            {file.name} ({Math.ceil(file.size / 1024)} kB)
          </span>
        </p>
      )}
    </div>
  );
}
